import TestSupport
import Testing
import Zlib

/// `Inflater.inflate(_:through:_:)`: the stream inflated through one fixed buffer, piece by piece.
@Suite struct InflaterPiecesTests {
    static let body = CacheCoreFixtures.compressibleBody(length: 100_000)

    /// Inflates `stream` (fed in `feed`-byte inputs) through a buffer of `size` bytes.
    static func pieces(
        _ stream: [UInt8], inflater: Inflater, size: Int, feed: Int
    ) throws -> (joined: [UInt8], largest: Int) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 1)
        defer { buffer.deallocate() }
        var joined: [UInt8] = []
        var largest = 0
        var start = 0
        while start < stream.count {
            let end = min(start + feed, stream.count)
            try stream[start..<end].withUnsafeBytes { input in
                try inflater.inflate(input, through: buffer) { piece in
                    joined.append(contentsOf: piece)
                    largest = max(largest, piece.count)
                    return true
                }
            }
            start = end
        }
        return (joined, largest)
    }

    @Test(arguments: [(1, 1), (7, 3), (4096, 1), (4096, 100_000), (1 << 20, 100_000)])
    func thePiecesMakeTheWholeBodyAndNeverExceedTheBuffer(size: Int, feed: Int) throws {
        let stream = try Deflater(format: .zlib).deflate(Self.body, flush: .finish)
        let inflater = try Inflater(format: .zlib)
        let (joined, largest) = try Self.pieces(stream, inflater: inflater, size: size, feed: feed)
        #expect(sameBytes(joined, Self.body))
        #expect(largest <= size)
        #expect(inflater.isFinished && inflater.totalOut == Self.body.count)
    }

    @Test func theLimitStopsTheStreamOneByteBeyond() throws {
        let stream = try Deflater(format: .zlib).deflate([UInt8](repeating: 0, count: 1 << 20), flush: .finish)
        let inflater = try Inflater(format: .zlib, outputLimit: 1000)
        let error = #expect(throws: ZlibError.self) {
            _ = try Self.pieces(stream, inflater: inflater, size: 64 << 10, feed: stream.count)
        }
        #expect(error?.kind == .outputLimitExceeded(limit: 1000))
        #expect(inflater.totalOut == 1001)
    }

    @Test func bytesAfterTheEndAndCorruptDataAreErrors() throws {
        let stream = try Deflater(format: .zlib).deflate(Self.body, flush: .finish)
        let trailing = #expect(throws: ZlibError.self) {
            _ = try Self.pieces(stream + [1, 2], inflater: Inflater(format: .zlib), size: 4096, feed: stream.count + 2)
        }
        #expect(trailing?.kind == .trailingBytes(count: 2))
        var corrupt = stream
        corrupt[corrupt.count - 1] ^= 0x01
        let checksum = #expect(throws: ZlibError.self) {
            _ = try Self.pieces(corrupt, inflater: Inflater(format: .zlib), size: 4096, feed: 4096)
        }
        #expect(checksum?.kind == .library)
    }

    @Test func aConsumerCanStopEarly() throws {
        let stream = try Deflater(format: .zlib).deflate(Self.body, flush: .finish)
        let inflater = try Inflater(format: .zlib)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1024, alignment: 1)
        defer { buffer.deallocate() }
        var calls = 0
        try stream.withUnsafeBytes { input in
            try inflater.inflate(input, through: buffer) { _ in
                calls += 1
                return false
            }
        }
        #expect(calls == 1)
        #expect(inflater.totalOut == 1024)
        #expect(!inflater.isFinished)
    }
}
