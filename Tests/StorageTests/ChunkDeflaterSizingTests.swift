import TestSupport
import Testing

@testable import Storage

/// A body that is its own last chunk is deflated with zlib sized to it (`Deflater` chooses the window):
/// what comes out must still be a last chunk the strict inflater takes back, for every size up to a full
/// chunk, compressible or not.
@Suite struct ChunkDeflaterSizingTests {
    @Test(arguments: [0, 1, 100, 737, 1000, 1024, 3000, 20_000, 40_000, 65_536])
    func aSizedChunkInflatesToTheBody(count: Int) throws {
        for body in [
            CacheCoreFixtures.compressibleBody(length: count), CacheCoreFixtures.randomBody(length: count, seed: 3),
        ] {
            let sized = try ChunkDeflater(wholeBodyOf: count, level: 6).deflateChunk(body[...], isLast: true)
            #expect(try sameBytes(ChunkInflater().inflateChunk(sized, expectedLength: count, isLast: true), body))
        }
    }
}
