import CacheCore
import Testing

/// HMAC-SHA256 against the test vectors of RFC 4231 §4, which cover short, long (hashed first) and
/// block-sized keys.
@Suite struct HMACSHA256Tests {
    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    static let vectors: [(key: [UInt8], data: [UInt8], mac: String)] = [
        // Test case 1
        (
            [UInt8](repeating: 0x0B, count: 20), Array("Hi There".utf8),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        ),
        // Test case 2: a key shorter than the output
        (
            Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        ),
        // Test case 3: 50 bytes of 0xdd
        (
            [UInt8](repeating: 0xAA, count: 20), [UInt8](repeating: 0xDD, count: 50),
            "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"
        ),
        // Test case 6: a key longer than a block, hashed first
        (
            [UInt8](repeating: 0xAA, count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        ),
    ]

    @Test(arguments: 0..<vectors.count) func macMatchesRFC4231(index: Int) {
        let vector = Self.vectors[index]
        #expect(HMACSHA256(key: vector.key).authenticationCode(vector.data) == Self.hex(vector.mac))
    }

    @Test func piecesAreTheMessageLaidEndToEnd() {
        let key = HMACSHA256(key: Array("Jefe".utf8))
        let whole = key.authenticationCode(Array("what do ya want for nothing?".utf8))
        #expect(key.authenticationCode(Array("what do ya".utf8), Array(" want for nothing?".utf8)) == whole)
        #expect(key.authenticationCode(Array("what do ya".utf8)) != whole)
    }

    @Test func aKeyOfExactlyOneBlockIsUsedAsItIs() {
        // 64 bytes: neither hashed nor padded; a 65-byte key is hashed, so the two must differ.
        let block = [UInt8](repeating: 0x61, count: 64)
        let mac = HMACSHA256(key: block).authenticationCode(Array("m".utf8))
        #expect(mac != HMACSHA256(key: block + [0x61]).authenticationCode(Array("m".utf8)))
        #expect(
            HMACSHA256(key: HMACSHA256.sha256(block + [0x61])).authenticationCode(Array("m".utf8))
                == HMACSHA256(key: block + [0x61]).authenticationCode(Array("m".utf8)))
        // Used as it is, a one-block key ending in a zero byte is its shorter prefix zero-padded: the same
        // MAC. Hashed (`>=` in place of `>`), the two would differ.
        let zeroEnded = [UInt8](repeating: 0x62, count: 63) + [0x00]
        #expect(
            HMACSHA256(key: zeroEnded).authenticationCode(Array("m".utf8))
                == HMACSHA256(key: Array(zeroEnded.prefix(63))).authenticationCode(Array("m".utf8)))
    }
}
