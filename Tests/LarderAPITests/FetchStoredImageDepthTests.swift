import CacheCore
import Foundation
import HTTPCore
import ImageSniffing
import Storage
import TestSupport
import Testing

@testable import LarderAPI

/// A stored image is validated on read at `ImageValidator.Depth.structure`: its image data was inflated
/// and checked on admission, and a changed byte since fails a chunk CRC, so a hit does not inflate it again.
@Suite struct FetchStoredImageDepthTests {
    /// `ImageSamples.png1x1` with its image data replaced by bytes that are not zlib and the chunk's CRC
    /// recomputed: sound chunks, bad image data (the case of `ImageValidatorDepthTests`).
    static func pngWithBadImageData() -> [UInt8] {
        let png = ImageSamples.png1x1
        var out = Array(png[0..<8])
        var offset = 8
        func bigEndian(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
        while offset + 12 <= png.count {
            let length = png[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = Array(png[offset + 4..<offset + 8])
            var data = Array(png[offset + 8..<offset + 8 + length])
            if type == Array("IDAT".utf8) { data = Array("not zlib".utf8) }
            out += bigEndian(UInt32(data.count)) + type + data + bigEndian(ReferenceCRC32.checksum(type + data))
            offset += 12 + length
        }
        return out
    }

    @Test func aStoredImageWithBadImageDataIsAHitWithoutInflating() async throws {
        let bytes = Self.pngWithBadImageData()
        // The premise: only a full-depth validation (admission's) refuses these bytes.
        #expect(ImageValidator().validate(bytes).rejection?.reason == .pngBadImageData)
        #expect(ImageValidator(depth: .structure).validate(bytes).info?.format == .png)
        try await withFetchHarness(decision: FetchMetricsTests.images) { harness in
            let url = try harness.storeAsPNG("/d.png", bytes)
            let hit = try harness.fetch("/d.png")
            #expect(hit.header("X-Cache") == "HIT")
            #expect(sameBytes(hit.body, bytes))
            #expect(await harness.settle())
            #expect(harness.origin.requestCount(for: "/d.png") == 0)
            #expect(harness.service.metrics.imageValidationFailureCount(format: .png, stage: .read) == 0)
            #expect(try harness.store.entry(for: CacheKey.make(canonicalURL: url)) != nil)
        }
    }

    /// The rule of `ImageReadVerdicts`: a stored image is validated on its first read in a process, and
    /// again only once its entry changes (a new body). The memory tier is off, so every hit reads the store.
    @Test func aStoredImageIsValidatedOnItsFirstReadUntilItsEntryChanges() async throws {
        let configuration = FetchConfiguration(hotBudgetBytes: 0)
        try await withFetchHarness(decision: FetchMetricsTests.images, configuration: configuration) { harness in
            try harness.storeAsPNG("/v.png", ImageSamples.png1x1)
            for _ in 0..<3 {
                let hit = try harness.fetch("/v.png")
                #expect(hit.header("X-Cache") == "HIT")
                #expect(sameBytes(hit.body, ImageSamples.png1x1))
            }
            #expect(harness.service.imageReads.runs == 1)
            // The same URL stored again with bytes that are no image: a new body, validated on its read and
            // refused, so the entry is deleted and the origin's image fetched in its place.
            harness.origin.respond(
                to: "/v.png",
                with: .ok(bytes: ImageSamples.png1x1, contentType: "image/png").header("Cache-Control", "max-age=60"))
            try harness.storeAsPNG("/v.png", Array("not a png at all".utf8))
            let refetched = try harness.fetch("/v.png")
            #expect(refetched.header("X-Cache") == "MISS")
            #expect(sameBytes(refetched.body, ImageSamples.png1x1))
            #expect(harness.service.imageReads.runs == 2)
            #expect(harness.service.metrics.imageValidationFailureCount(format: nil, stage: .read) == 1)
            #expect(harness.origin.requestCount(for: "/v.png") == 1)
        }
    }
}
