import TestSupport
import Testing

@testable import Storage

@Suite struct ChunkInflaterTests {
    @Test func chunksInflateAloneAfterAFullFlush() throws {
        let deflater = try ChunkDeflater()
        let text = CacheCoreFixtures.compressibleBody(length: 3000)
        let first = try deflater.deflateChunk(text[0..<1000], isLast: false)
        let second = try deflater.deflateChunk(text[1000..<2000], isLast: false)
        let third = try deflater.deflateChunk(text[2000..<3000], isLast: true)
        #expect(first.suffix(4) == [0x00, 0x00, 0xFF, 0xFF])
        let inflater = try ChunkInflater()
        // Out of order, each with a fresh state: no chunk needs another's dictionary.
        #expect(try inflater.inflateChunk(third, expectedLength: 1000, isLast: true) == Array(text[2000..<3000]))
        #expect(try inflater.inflateChunk(second, expectedLength: 1000, isLast: false) == Array(text[1000..<2000]))
        #expect(try inflater.inflateChunk(first, expectedLength: 1000, isLast: false) == Array(text[0..<1000]))
    }

    @Test func lengthOtherThanRecordedIsRejected() throws {
        let chunk = try ChunkDeflater().deflateChunk(ArraySlice(repeating: 7, count: 500), isLast: true)
        let inflater = try ChunkInflater()
        #expect(throws: ChunkCodecError.self) {
            _ = try inflater.inflateChunk(chunk, expectedLength: 499, isLast: true)
        }
        #expect(throws: ChunkCodecError.self) {
            _ = try inflater.inflateChunk(chunk, expectedLength: 501, isLast: true)
        }
        #expect(throws: ChunkCodecError.self) {
            _ = try inflater.inflateChunk(chunk, expectedLength: 500, isLast: false)
        }
        #expect(try inflater.inflateChunk(chunk, expectedLength: 500, isLast: true).count == 500)
    }

    @Test func garbageIsRejected() throws {
        let inflater = try ChunkInflater()
        #expect(throws: ChunkCodecError.self) {
            _ = try inflater.inflateChunk([0xFF, 0xFF, 0xFF], expectedLength: 10, isLast: true)
        }
        #expect(throws: ChunkCodecError.self) { _ = try inflater.inflateChunk([], expectedLength: 10, isLast: true) }
    }
}
