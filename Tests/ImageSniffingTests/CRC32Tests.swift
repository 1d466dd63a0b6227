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
