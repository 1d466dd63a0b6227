import CacheCore
import CachePolicy
import Foundation
import HTTPCore
import LarderAPI
import Storage
import TestSupport
import Testing

/// What `/fetch` does with a filter's response-side rules: `validateImage`, `contentTypes`, `maxBytes`,
/// `ttl`, and the key options (`ignoreQuery`).
@Suite struct FetchFilterDecisionTests {
    static let images = FilterDecision(filterName: "images", validateImage: true)

    @Test func validImageIsStoredWithItsFormat() async throws {
        try await withFetchHarness(decision: Self.images) { harness in
            harness.origin.respond(
                to: "/p.png",
                with: .ok(bytes: ImageSamples.png1x1, contentType: "image/png").header("Cache-Control", "max-age=60"))
            let miss = try harness.fetch("/p.png")
            #expect(sameBytes(miss.body, ImageSamples.png1x1))
            #expect(miss.header("Cache-Status")?.contains("stored") == true)
            #expect(await harness.settle())
            let hit = try harness.fetch("/p.png")
            #expect(hit.header("X-Cache") == "HIT")
            let key = try #require(CacheKey(hex: harness.key("/p.png")))
            #expect(try harness.store.entry(for: key)?.imageFormat == "png")
            #expect(try harness.store.entry(for: key)?.filterName == "images")
            #expect(harness.origin.requestCount(for: "/p.png") == 1)
        }
    }

    @Test func storedImageThatNoLongerValidatesIsDeletedAndRefetched() async throws {
        try await withFetchHarness(decision: Self.images) { harness in
            harness.origin.respond(
                to: "/c.png",
                with: .ok(bytes: ImageSamples.png1x1, contentType: "image/png").header("Cache-Control", "max-age=60"))
            let key = CacheKey.make(canonicalURL: try harness.storeAsPNG("/c.png", Array("not a png at all".utf8)))
            let response = try harness.fetch("/c.png")
            #expect(sameBytes(response.body, ImageSamples.png1x1))
            #expect(response.header("X-Cache") == "MISS")
            #expect(harness.origin.requestCount(for: "/c.png") == 1)
            #expect(await harness.settle())
            let replaced = try #require(try harness.store.entry(for: key))
            let reader = try harness.store.openBody(of: replaced, form: .identity)
            var stored: [UInt8] = []
            while let piece = try reader.next() { stored += piece }
            #expect(sameBytes(stored, ImageSamples.png1x1))
            #expect(try sameBytes(harness.fetch("/c.png").body, ImageSamples.png1x1))
            #expect(harness.origin.requestCount(for: "/c.png") == 1)
        }
    }

    @Test func truncatedImageIsServedButNotStored() async throws {
        try await withFetchHarness(decision: Self.images) { harness in
            let truncated = Array(ImageSamples.png1x1.prefix(30))
            harness.origin.respond(
                to: "/t.png",
                with: .ok(bytes: truncated, contentType: "image/png").header("Cache-Control", "max-age=60"))
            let first = try harness.fetch("/t.png")
            #expect(sameBytes(first.body, truncated))
            #expect(first.header("X-Cache") == "BYPASS")
            #expect(first.header("Cache-Status")?.contains("not a valid image") == true)
            #expect(first.header("Cache-Status")?.contains("stored") == false)
            #expect(await harness.settle())
            // Not stored, so fetched again, and refused again.
            #expect(try harness.fetch("/t.png").header("X-Cache") == "BYPASS")
            #expect(harness.origin.requestCount(for: "/t.png") == 2)
            #expect(try harness.store.stats().entryCount == 0)
        }
    }

    @Test func contentTypeOutsideTheFiltersListIsNotStored() async throws {
        try await withFetchHarness(decision: FilterDecision(filterName: "img", contentTypes: ["image/*"])) { harness in
            harness.origin.respond(to: "/x", with: .ok("text").header("Cache-Control", "max-age=60"))
            let response = try harness.fetch("/x")
            #expect(response.header("Cache-Status")?.contains("content type") == true)
            #expect(await harness.settle())
            _ = try harness.fetch("/x")
            #expect(harness.origin.requestCount(for: "/x") == 2)
        }
    }

    @Test func bodyOverTheFiltersMaxBytesIsRelayedButNotStored() async throws {
        try await withFetchHarness(decision: FilterDecision(filterName: "small", maxBytes: 1000)) { harness in
            let body = CacheCoreFixtures.randomBody(length: 5000)
            harness.origin.respond(
                to: "/b",
                with: .ok(bytes: body).header("Cache-Control", "max-age=60").framed(.chunked)
                    .trickled(chunkSize: 700))
            let relayed = try harness.fetch("/b")
            #expect(sameBytes(relayed.body, body))
            #expect(await harness.settle())
            #expect(try harness.store.stats().entryCount == 0)
        }
    }

    @Test func filtersTTLOverridesTheOrigin() async throws {
        try await withFetchHarness(decision: FilterDecision(filterName: "ttl", overrides: PolicyOverrides(ttl: 3600))) {
            harness in
            harness.origin.respond(to: "/t", with: .ok("t").header("Cache-Control", "max-age=5"))
            _ = try harness.fetch("/t")
            #expect(await harness.settle())
            harness.clock.advance(by: 600)
            #expect(try harness.fetch("/t").header("X-Cache") == "HIT")
            #expect(harness.origin.requestCount(for: "/t") == 1)
        }
    }

    @Test func ignoreQueryKeysOnThePathAlone() async throws {
        let decision = FilterDecision(filterName: "nq", canonicalization: URLCanonicalizer.Options(ignoreQuery: true))
        try await withFetchHarness(decision: decision) { harness in
            harness.origin.respond(to: "/q", with: .ok("q").header("Cache-Control", "max-age=60"))
            let first = try harness.fetch("/q?v=1")
            #expect(first.header("X-Cache-Key") == harness.key("/q"))
            #expect(await harness.settle())
            #expect(try harness.fetch("/q?v=2").header("X-Cache") == "HIT")
            #expect(harness.origin.requestCount(for: "/q") == 1)
        }
    }
}
