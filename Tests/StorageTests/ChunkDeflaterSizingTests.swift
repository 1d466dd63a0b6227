import TestSupport
import Testing

@testable import Storage

/// A body that is its own last chunk is deflated with a window sized to it (cheaper zlib set-up): the
/// window must still reach over the whole body, and the output must inflate to the body, for every size
/// up to a full chunk, compressible or not.
@Suite struct ChunkDeflaterSizingTests {
    @Test(arguments: [
        (0, 9), (1, 9), (250, 9), (251, 10), (762, 10), (763, 11), (1024, 11), (1786, 11), (1787, 12),
        (32_506, 15), (65_536, 15),
    ])
    func theWindowReachesOverTheWholeBody(count: Int, bits: Int32) {
        #expect(ChunkDeflater.windowBits(wholeBodyOf: count) == bits)
        // zlib's reach is the window less 262 bytes; a body that fits a smaller window gets that one.
        if bits < 15 { #expect((1 << Int(bits)) - 262 >= count) }
        if bits > 9 { #expect((1 << Int(bits - 1)) - 262 < count) }
    }

    @Test(arguments: [0, 1, 100, 737, 1000, 1024, 3000, 20_000, 40_000, 65_536])
    func aSizedDeflateInflatesToTheBodyAndCompressesAsWell(count: Int) throws {
        for body in [
            CacheCoreFixtures.compressibleBody(length: count), CacheCoreFixtures.randomBody(length: count, seed: 3),
        ] {
            let sized = try ChunkDeflater(wholeBodyOf: count, level: 6).deflateChunk(body[...], isLast: true)
            let standard = try ChunkDeflater(level: 6).deflateChunk(body[...], isLast: true)
            #expect(try ChunkInflater().inflateChunk(sized, expectedLength: count, isLast: true) == body)
            // Same matches within reach; a smaller hash table may pick a few differently.
            #expect(Double(sized.count) <= Double(standard.count) * 1.05 + 8)
        }
    }
}
