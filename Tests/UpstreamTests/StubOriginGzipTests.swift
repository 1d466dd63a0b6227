import TestSupport
import Testing

struct StubOriginGzipTests {
    @Test func trailerHoldsTheBodysCRC32() {
        let body = Array("123456789".utf8)
        #expect(sameBytes(Array(StubOriginGzip.encode(body).suffix(8).prefix(4)), [0x26, 0x39, 0xF4, 0xCB]))
    }

    @Test(arguments: [0, 5, 65_535, 65_536, 200_000])
    func gzipFramesStoredBlocksWithTrailer(size: Int) {
        let body = (0..<size).map { UInt8(truncatingIfNeeded: $0) }
        let encoded = StubOriginGzip.encode(body)
        #expect(Array(encoded.prefix(3)) == [0x1F, 0x8B, 8])
        let blocks = max(1, (size + 65_534) / 65_535)
        #expect(encoded.count == 10 + blocks * 5 + size + 8)
        let isize = encoded.suffix(4).enumerated().reduce(UInt32(0)) {
            $0 | UInt32($1.element) << (8 * UInt32($1.offset))
        }
        #expect(isize == UInt32(size))
    }
}
