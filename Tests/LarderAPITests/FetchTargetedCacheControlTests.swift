import CacheCore
import CachePolicy
import Foundation
import HTTPCore
import Storage
import TestSupport
import Testing

/// `/fetch` obeying `CDN-Cache-Control` (RFC 9213) over `Cache-Control` and `Expires`, through a real origin
/// and store: what is stored, how long it is fresh, and that the field reaches the caller as sent.
@Suite struct FetchTargetedCacheControlTests {
    @Test func cdnMaxAgeStoresWhatCacheControlForbidsAndForwardsTheField() async throws {
        try await withFetchHarness { harness in
            harness.origin.respond(
                to: "/c",
                with: .ok("cdn").header("Cache-Control", "no-store").header("CDN-Cache-Control", "max-age=600"))
            let miss = try harness.fetch("/c")
            #expect(miss.header("X-Cache") == "MISS")
            // Forwarded unchanged, as RFC 9213 §3 expects of a cache that uses it.
            #expect(miss.header("CDN-Cache-Control") == "max-age=600")
            #expect(miss.header("Cache-Control") == "no-store")
            #expect(await harness.settle())
            harness.clock.advance(by: 300)
            let hit = try harness.fetch("/c")
            #expect(hit.header("X-Cache") == "HIT")
            #expect(hit.header("CDN-Cache-Control") == "max-age=600")
            #expect(hit.header("Cache-Control") == "no-store")
            #expect(harness.origin.requestCount(for: "/c") == 1)
            harness.clock.advance(by: 301)
            #expect(try harness.fetch("/c").header("X-Cache") != "HIT")
            #expect(harness.origin.requestCount(for: "/c") == 2)
        }
    }

    @Test func shortCDNMaxAgeWinsOverLongCacheControl() async throws {
        try await withFetchHarness { harness in
            harness.origin.respond(
                to: "/s",
                with: .ok("short").header("Cache-Control", "max-age=3600").header("CDN-Cache-Control", "max-age=5"))
            _ = try harness.fetch("/s")
            #expect(await harness.settle())
            harness.clock.advance(by: 10)
            #expect(try harness.fetch("/s").header("X-Cache") != "HIT")
            #expect(harness.origin.requestCount(for: "/s") == 2)
        }
    }

    @Test func cdnNoStoreRefusesWhatCacheControlAllows() async throws {
        try await withFetchHarness { harness in
            harness.origin.respond(
                to: "/n",
                with: .ok("never").header("Cache-Control", "max-age=3600").header("CDN-Cache-Control", "no-store"))
            let first = try harness.fetch("/n")
            #expect(first.header("Cache-Status")?.contains("no-store") == true)
            #expect(await harness.settle())
            #expect(try harness.store.stats().entryCount == 0)
            #expect(try harness.fetch("/n").header("X-Cache") == "MISS")
            #expect(harness.origin.requestCount(for: "/n") == 2)
        }
    }

    @Test func invalidCDNFieldFallsBackToCacheControl() async throws {
        try await withFetchHarness { harness in
            harness.origin.respond(
                to: "/i",
                with: .ok("bad").header("Cache-Control", "no-store").header("CDN-Cache-Control", "max-age=\"10000\""))
            _ = try harness.fetch("/i")
            #expect(await harness.settle())
            #expect(try harness.store.stats().entryCount == 0)
            #expect(try harness.fetch("/i").header("X-Cache") == "MISS")
            #expect(harness.origin.requestCount(for: "/i") == 2)
        }
    }
}
