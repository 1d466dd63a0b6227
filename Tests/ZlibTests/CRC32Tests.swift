import CZlib
import TestSupport
import Testing
import Zlib

@Suite struct CRC32Tests {
    @Test(arguments: [
        ("", 0x0000_0000 as UInt32),
        ("123456789", 0xCBF4_3926),
        ("IEND", 0xAE42_6082),  // the CRC every PNG ends with
        ("hello", 0x3610_A686),  // the trailer of `printf hello | gzip`
        ("The quick brown fox jumps over the lazy dog", 0x414F_A339),
    ])
    func checksumMatchesKnownValues(text: String, expected: UInt32) {
        #expect(CRC32.checksum(Array(text.utf8)) == expected)
        #expect(Array(text.utf8).withUnsafeBytes { CRC32.checksum($0) } == expected)
        #expect(ReferenceCRC32.checksum(Array(text.utf8)) == expected)
    }

    /// Runs of 64 bytes and more are folded with PCLMULQDQ, 16 bytes at a time, and zlib checks what is
    /// left: every length and alignment (each tail length, inputs of 63, 64 and 65 bytes) must agree with
    /// the bitwise definition.
    @Test func everyLengthAndOffsetMatchesTheBitwiseDefinition() {
        let bytes = CacheCoreFixtures.randomBody(length: 600, seed: 42)
        for start in 0..<9 {
            for end in start...bytes.count {
                let slice = bytes[start..<end]
                #expect(CRC32.checksum(slice) == ReferenceCRC32.checksum(slice), "\(start)..<\(end)")
            }
        }
    }

    @Test(arguments: [1 << 10, 64 << 10, 1 << 20])
    func largeBuffersMatchTheBitwiseDefinition(count: Int) {
        let bytes = CacheCoreFixtures.randomBody(length: count, seed: UInt64(count))
        #expect(CRC32.checksum(bytes) == ReferenceCRC32.checksum(bytes))
    }

    /// The copying update reads each folded byte once for both: every length and alignment must give the
    /// bitwise checksum and an exact copy, and write nothing past the copy's end.
    @Test func aCopyingUpdateChecksAndCopiesEveryLengthAndOffset() {
        let bytes = CacheCoreFixtures.randomBody(length: 300, seed: 9)
        for start in 0..<5 {
            for end in start...bytes.count {
                let slice = bytes[start..<end]
                var copy = [UInt8](repeating: 0xEE, count: slice.count + 16)
                var crc = CRC32(continuing: 0x1234_5678)
                slice.withUnsafeBytes { source in
                    copy.withUnsafeMutableBytes { crc.update(source, copyingTo: $0.baseAddress!) }
                }
                var expected = CRC32(continuing: 0x1234_5678)
                expected.update(slice)
                #expect(crc.value == expected.value, "\(start)..<\(end)")
                #expect(copy[..<slice.count].elementsEqual(slice), "\(start)..<\(end)")
                #expect(copy[slice.count...].allSatisfy { $0 == 0xEE }, "\(start)..<\(end)")
            }
        }
        let large = CacheCoreFixtures.randomBody(length: 1 << 20, seed: 3)
        var copy = [UInt8](repeating: 0, count: large.count)
        var crc = CRC32()
        large.withUnsafeBytes { source in copy.withUnsafeMutableBytes { crc.update(source, copyingTo: $0.baseAddress!) }
        }
        #expect(crc.value == ReferenceCRC32.checksum(large))
        #expect(copy == large)
    }

    /// Runs of 512 bytes and more fold four 512-bit lanes at a time where the CPU has AVX-512 with
    /// VPCLMULQDQ (`CRC32.foldsWide`): around each length where the wide loop takes another step or hands
    /// over to the narrow one, at every alignment, with and without the copy, the checksum must be the
    /// bitwise one and the copy exact, with nothing written past it.
    @Test func theWideFoldMatchesTheBitwiseDefinitionAroundEachOfItsSteps() {
        let bytes = CacheCoreFixtures.randomBody(length: 2_400, seed: 77)
        let lengths = [
            496, 511, 512, 513, 527, 528, 575, 576, 767, 768, 769, 1_023, 1_024, 1_040, 1_088, 2_047, 2_048, 2_335,
        ]
        for start in 0..<17 {
            for length in lengths {
                let slice = bytes[start..<start + length]
                let expected = ReferenceCRC32.checksum(slice)
                #expect(CRC32.checksum(slice) == expected, "\(start)+\(length)")
                #expect(slice.withUnsafeBytes { CRC32.narrowFoldChecksum($0) } == expected, "\(start)+\(length)")
                var copy = [UInt8](repeating: 0xEE, count: length + 64)
                var crc = CRC32()
                slice.withUnsafeBytes { source in
                    copy.withUnsafeMutableBytes { crc.update(source, copyingTo: $0.baseAddress!) }
                }
                #expect(crc.value == expected, "\(start)+\(length)")
                #expect(copy[..<length].elementsEqual(slice), "\(start)+\(length)")
                #expect(copy[length...].allSatisfy { $0 == 0xEE }, "\(start)+\(length)")
            }
        }
    }

    @Test func updatesInPiecesEqualOneUpdate() {
        let bytes = CacheCoreFixtures.randomBody(length: 5000, seed: 7)
        let whole = CRC32.checksum(bytes)
        for split in [0, 1, 3, 8, 100, 4095, 4999, 5000] {
            var crc = CRC32()
            crc.update(bytes[..<split])
            crc.update(bytes[split...])
            #expect(crc.value == whole, "split at \(split)")
        }
        var continued = CRC32(continuing: CRC32.checksum(bytes[..<1234]))
        continued.update(bytes[1234...])
        #expect(continued.value == whole)
    }

    @Test func emptyUpdatesChangeNothing() {
        var crc = CRC32()
        crc.update([UInt8]())
        crc.update(UnsafeRawBufferPointer(start: nil, count: 0))
        #expect(crc.value == 0)
        crc.update(Array("123456789".utf8))
        crc.update([UInt8]())
        #expect(crc.value == 0xCBF4_3926)
    }

    @Test func bytesNotStoredContiguouslyGiveTheSameChecksum() {
        let lazy = (0..<1000).lazy.map { UInt8(truncatingIfNeeded: $0 * 7) }
        #expect(CRC32.checksum(lazy) == ReferenceCRC32.checksum(Array(lazy)))
    }

    @Test func theOracleForZerosAgreesWithTheBitwiseOne() {
        for count in [0, 1, 258, 10_000] {
            #expect(
                ReferenceCRC32.checksumOfZeros(count: count)
                    == ReferenceCRC32.checksum([UInt8](repeating: 0, count: count)))
            #expect(CRC32.checksum([UInt8](repeating: 0, count: count)) == ReferenceCRC32.checksumOfZeros(count: count))
        }
    }

    /// A body's checksum from its chunks' checksums (how the store checks a body kept as it came) must be
    /// the checksum of the whole, whatever the chunk sizes, empty ones included.
    @Test(arguments: [[0], [1, 0, 5], [64, 64, 64], [65_536, 65_536, 1_234], [3, 100_000]])
    func checksumsAppendedByLengthEqualTheWhole(lengths: [Int]) {
        let bytes = CacheCoreFixtures.randomBody(length: lengths.reduce(0, +), seed: 11)
        var combined = CRC32()
        var offset = 0
        for length in lengths {
            combined.append(checksum: CRC32.checksum(bytes[offset..<offset + length]), length: length)
            offset += length
        }
        #expect(combined.value == ReferenceCRC32.checksum(bytes))
    }

    /// Appending to a running value of 0 gives the appended checksum unchanged, as zlib's combination does
    /// for any bytes whose checksum is 0 (the shortcut the first chunk of every body takes).
    @Test(arguments: [0, 1, 4, 65_536])
    func aChecksumAppendedToZeroIsItself(length: Int) {
        for seed in UInt64(1)...20 {
            let checksum = UInt32(truncatingIfNeeded: seed &* 0x9E37_79B9_7F4A_7C15 >> 17)
            var running = CRC32(continuing: 0)
            running.append(checksum: checksum, length: length)
            #expect(running.value == checksum)
            #expect(UInt32(truncatingIfNeeded: crc32_combine(0, uLong(checksum), .init(length))) == checksum)
        }
    }
}
