import CacheCore
import TestSupport
import Testing

@testable import Storage

/// The byte-statistics look that spares deflate on bytes it could not shrink.
@Suite struct CompressibilityProbeTests {
    @Test(arguments: [1024, 8192, 65_536, 200_000])
    func randomBytesAreNotWorthDeflating(size: Int) {
        let bytes = CacheCoreFixtures.randomBody(length: size)[...]
        #expect(CompressibilityProbe.estimatedBitsPerByte(bytes) > 7.8)
        #expect(!CompressibilityProbe.isWorthDeflating(bytes))
    }

    @Test(arguments: [100, 1024, 65_536])
    func textIsWorthDeflating(size: Int) {
        let bytes = CacheCoreFixtures.compressibleBody(length: size, seed: 7)[...]
        #expect(CompressibilityProbe.estimatedBitsPerByte(bytes) < 6)
        #expect(CompressibilityProbe.isWorthDeflating(bytes))
    }

    @Test func oneRepeatedByteAndNothingAreZeroBits() {
        #expect(CompressibilityProbe.estimatedBitsPerByte(Array(repeating: 0x41, count: 5000)[...]) == 0)
        #expect(CompressibilityProbe.estimatedBitsPerByte([UInt8]()[...]) == 0)
    }

    /// A large chunk is sampled across its whole length, not only at its start: random bytes in front of a
    /// long run of zeros still make it worth deflating.
    @Test func aLargeChunkIsSampledAcrossItsLength() {
        let bytes = CacheCoreFixtures.randomBody(length: 8192) + [UInt8](repeating: 0, count: 56 * 1024)
        #expect(CompressibilityProbe.isWorthDeflating(bytes[...]))
    }

    /// Bytes over a 64-letter alphabet (random base64, about 6 bits a byte) are below the bound, and
    /// deflate does take them under the store's keep-deflated ratio (0.9): the bound leaves such bodies
    /// their compression.
    @Test func base64LikeBytesAreStillDeflated() throws {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        let bytes = CacheCoreFixtures.randomBody(length: 16_384).map { alphabet[Int($0 & 63)] }[...]
        #expect(CompressibilityProbe.isWorthDeflating(bytes))
        let deflated = try ChunkDeflater(wholeBodyOf: bytes.count, level: 6).deflateChunk(bytes, isLast: true)
        #expect(Double(deflated.count) <= 0.9 * Double(bytes.count))
    }

    /// End to end: a random body of no declared type is kept as it came, a text body deflated.
    @Test func theStoreKeepsRandomBytesAsTheyCameAndDeflatesText() throws {
        let harness = try StorageTestHarness()
        let random = try harness.put(CacheCoreFixtures.makeEntry(), CacheCoreFixtures.randomBody(length: 20_000))
        #expect(random.storedSize == random.originalSize)
        let text = try harness.put(
            CacheCoreFixtures.makeEntry(url: "https://example.com/text"),
            CacheCoreFixtures.compressibleBody(length: 20_000, seed: 3))
        #expect(text.storedSize < text.originalSize / 2)
    }
}
