import Testing

@testable import ImageSniffing

@Suite struct CRC32Tests {
    @Test(arguments: [
        ("", 0x0000_0000 as UInt32),
        ("123456789", 0xCBF4_3926),
        ("IEND", 0xAE42_6082),
        ("The quick brown fox jumps over the lazy dog", 0x414F_A339),
    ])
    func checksumMatchesKnownValues(text: String, expected: UInt32) {
        #expect(Array(text.utf8).withUnsafeBytes { CRC32.checksum($0) } == expected)
    }

    /// The eight-byte loop and the byte loop must agree at every length and alignment.
    @Test func everyLengthAndOffsetMatchesTheBitwiseDefinition() {
        var generator = SeededGenerator(seed: 42)
        let bytes = (0..<80).map { _ in UInt8.random(in: 0...255, using: &generator) }
        for start in 0..<9 {
            for end in start...bytes.count {
                let slice = Array(bytes[start..<end])
                let fast = slice.withUnsafeBytes { CRC32.checksum($0) }
                #expect(fast == Self.bitwise(slice), "\(start)..<\(end)")
            }
        }
    }

    /// CRC-32 one bit at a time, straight from the definition.
    static func bitwise(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }

    @Test func updatesInPiecesEqualOneUpdate() {
        let bytes = Array("123456789".utf8)
        var crc = CRC32()
        bytes.withUnsafeBytes {
            crc.update(UnsafeRawBufferPointer(rebasing: $0[..<4]))
            crc.update(UnsafeRawBufferPointer(rebasing: $0[4...]))
        }
        #expect(crc.value == 0xCBF4_3926)
    }
}
