import CacheCore
import CachePolicy
import Foundation
import HTTPCore
import LarderAPI
import Storage
import TestSupport
import Testing

/// What `/fetch` stores beyond plain RFC 9111: a filter's `ignoreNoStore`, the sniffed image type over the
/// declared one, and the pixel limit of image validation.
@Suite struct FetchStoragePolicyTests {
    struct NoStoreCase: CustomTestStringConvertible, Sendable {
        var name: String
        var ignoreNoStore: Bool
        var callerHeaders: [(String, String)] = []
        var stored: Bool
        var reason: String?
        var testDescription: String { name }
    }

    static let noStoreCases: [NoStoreCase] = [
        NoStoreCase(name: "origin no-store wins by default", ignoreNoStore: false, stored: false, reason: "no-store"),
        NoStoreCase(name: "ignoreNoStore stores it", ignoreNoStore: true, stored: true),
        NoStoreCase(
            name: "the caller's no-store still wins over ignoreNoStore", ignoreNoStore: true,
            callerHeaders: [("Cache-Control", "no-store")], stored: false, reason: "request-no-store"),
    ]

    @Test(arguments: noStoreCases)
    func originNoStoreIsStoredOnlyWhenTheFilterIgnoresIt(_ testCase: NoStoreCase) async throws {
        let decision = FilterDecision(filterName: "keep", ignoreNoStore: testCase.ignoreNoStore)
        try await withFetchHarness(decision: decision) { harness in
            harness.origin.respond(to: "/n", with: .ok("kept?").header("Cache-Control", "max-age=60, no-store"))
            let first = try harness.fetch("/n", headers: testCase.callerHeaders)
            #expect(first.body == Array("kept?".utf8))
            #expect(first.header("Cache-Status")?.contains("stored") == testCase.stored)
            if let reason = testCase.reason { #expect(first.header("Cache-Status")?.contains(reason) == true) }
            #expect(await harness.settle())
            #expect(try harness.store.stats().entryCount == (testCase.stored ? 1 : 0))
            let second = try harness.fetch("/n")
            #expect(second.header("X-Cache") == (testCase.stored ? "HIT" : "MISS"))
            // A stored response still tells downstream caches not to keep it.
            if testCase.stored { #expect(second.header("Cache-Control") == "max-age=60, no-store") }
            #expect(harness.origin.requestCount(for: "/n") == (testCase.stored ? 1 : 2))
        }
    }

    static let images = FilterDecision(filterName: "images", contentTypes: ["image/*"], validateImage: true)

    struct TypeCase: CustomTestStringConvertible, Sendable {
        var declared: String
        var declaredInMeta: String
        var testDescription: String { "PNG declared as \(declared)" }
    }

    static let typeCases: [TypeCase] = [
        TypeCase(declared: "image/jpeg", declaredInMeta: "image/jpeg"),
        TypeCase(declared: "application/octet-stream", declaredInMeta: "application/octet-stream"),
        TypeCase(declared: "IMAGE/GIF; q=1", declaredInMeta: "IMAGE/GIF; q=1"),
        TypeCase(declared: "image/png", declaredInMeta: "image/png"),
    ]

    @Test(arguments: typeCases)
    func sniffedImageTypeIsStoredAndServedAndMetaShowsBoth(_ testCase: TypeCase) async throws {
        try await withFetchHarness(decision: Self.images) { harness in
            harness.origin.respond(
                to: "/p.img",
                with: .ok(bytes: ImageSamples.png1x1, contentType: testCase.declared).header(
                    "Cache-Control", "max-age=60"))
            let miss = try harness.fetch("/p.img")
            #expect(miss.header("X-Cache") == "MISS")
            #expect(miss.header("Cache-Status")?.contains("stored") == true)
            // Image validation holds the first callers until the body is complete, so they get it too.
            #expect(miss.header("Content-Type") == "image/png")
            #expect(await harness.settle())
            let hit = try harness.fetch("/p.img")
            #expect(hit.header("X-Cache") == "HIT")
            #expect(hit.header("Content-Type") == "image/png")
            #expect(hit.body == ImageSamples.png1x1)

            let key = try #require(CacheKey(hex: harness.key("/p.img")))
            let entry = try #require(try harness.store.entry(for: key))
            #expect(entry.contentType == "image/png")
            #expect(entry.mediaType == "image/png")
            #expect(entry.declaredContentType == (testCase.declared == "image/png" ? nil : testCase.declared))
            let meta = try #require(
                try JSONSerialization.jsonObject(with: Data(CacheEntryJSON.meta(entry, now: harness.clock.now).utf8))
                    as? [String: Any])
            #expect(meta["contentType"] as? String == "image/png")
            #expect(meta["declaredContentType"] as? String == testCase.declaredInMeta)
        }
    }

    @Test func sniffedTypeOutsideTheFiltersContentTypesIsNotStored() async throws {
        let jpegOnly = FilterDecision(filterName: "jpeg", contentTypes: ["image/jpeg"], validateImage: true)
        try await withFetchHarness(decision: jpegOnly) { harness in
            harness.origin.respond(
                to: "/p.jpg",
                with: .ok(bytes: ImageSamples.png1x1, contentType: "image/jpeg").header("Cache-Control", "max-age=60"))
            let first = try harness.fetch("/p.jpg")
            #expect(first.body == ImageSamples.png1x1)
            #expect(first.header("Cache-Status")?.contains("content type 'image/png' not admitted") == true)
            #expect(await harness.settle())
            #expect(try harness.store.stats().entryCount == 0)
        }
    }

    @Test func nonImageDeclaredAsImageIsStillRefused() async throws {
        try await withFetchHarness(decision: Self.images) { harness in
            harness.origin.respond(
                to: "/h.png",
                with: .ok(bytes: Array("<html>no</html>".utf8), contentType: "application/octet-stream").header(
                    "Cache-Control", "max-age=60"))
            let first = try harness.fetch("/h.png")
            #expect(first.header("X-Cache") == "BYPASS")
            #expect(first.header("Cache-Status")?.contains("not a valid image") == true)
            #expect(first.header("Content-Type") == "application/octet-stream")
            #expect(await harness.settle())
            #expect(try harness.store.stats().entryCount == 0)
        }
    }

    /// The 8×8 JPEG sample has 64 pixels.
    @Test(arguments: [(63, false), (64, true), (67_108_864, true)])
    func imageOverTheConfiguredPixelLimitIsRelayedButNotStored(maxPixels: Int, stored: Bool) async throws {
        try await withFetchHarness(
            decision: Self.images, configuration: FetchConfiguration(maxImagePixels: maxPixels)
        ) { harness in
            harness.origin.respond(
                to: "/j.jpg",
                with: .ok(bytes: ImageSamples.jpeg8x8, contentType: "image/jpeg").header("Cache-Control", "max-age=60"))
            let first = try harness.fetch("/j.jpg")
            #expect(first.body == ImageSamples.jpeg8x8)
            let status = first.header("Cache-Status") ?? ""
            #expect(first.header("X-Cache") == (stored ? "MISS" : "BYPASS"))
            #expect(status.contains("stored") == stored)
            #expect(status.contains("pixel-limit") == !stored)
            #expect(await harness.settle())
            #expect(try harness.store.stats().entryCount == (stored ? 1 : 0))
            #expect(try harness.fetch("/j.jpg").header("X-Cache") == (stored ? "HIT" : "BYPASS"))
            #expect(harness.origin.requestCount(for: "/j.jpg") == (stored ? 1 : 2))
        }
    }
}
