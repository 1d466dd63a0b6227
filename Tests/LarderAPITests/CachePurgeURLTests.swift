import CacheCore
import CachePolicy
import Dispatch
import Foundation
import HTTPCore
import LarderAPI
import Synchronization
import TestSupport
import Testing

/// `DELETE /cache?url=` (every `Vary` variant, the URL canonicalized as `/fetch` does), soft purges with
/// the origin up (a 304 keeps the body) and down (the stale copy answers), and purges racing a store.
@Suite struct CachePurgeURLTests {
    /// A response that varies on `Accept-Language`, with a validator.
    static func varying(_ harness: InvalidationHarness, _ path: String) {
        harness.origin.respond(to: path) { request in
            if request.headers["If-None-Match"] == "\"v1\"" {
                return .status(304, headers: [("ETag", "\"v1\""), ("Cache-Control", "max-age=600")])
            }
            return .ok("\(path) in \(request.headers["Accept-Language"] ?? "none")").header("ETag", "\"v1\"")
                .header("Cache-Control", "max-age=600").header("Vary", "Accept-Language")
        }
    }

    @Test func aURLPurgeRemovesEveryVariantCanonicalizedByTheOwningFilter() async throws {
        let decision = FilterDecision(
            filterName: "no-tracking", canonicalization: URLCanonicalizer.Options(dropParams: [GlobPattern("utm_*")]))
        try await withInvalidationHarness(decider: FixedDecider(decision: decision)) { harness in
            Self.varying(harness, "/page")
            Self.varying(harness, "/other")
            for language in ["en", "fr", "de"] {
                _ = try harness.fetch("/page?utm_source=mail", headers: [("Accept-Language", language)])
            }
            _ = try harness.fetch("/other", headers: [("Accept-Language", "en")])
            #expect(await harness.settle())
            #expect(try harness.fetch("/page", headers: [("Accept-Language", "fr")]).header("X-Cache") == "HIT")
            // Spelled differently (another tracking parameter, upper-case host), as /fetch would key it.
            let purged = try harness.purge("url=" + harness.origin.url("/page?utm_campaign=x").percentEncoded())
            #expect(purged.json["purged"] as? Int == 3)
            for language in ["en", "fr", "de"] {
                #expect(
                    try harness.fetch("/page", headers: [("Accept-Language", language)]).header("X-Cache") == "MISS")
            }
            #expect(try harness.fetch("/other", headers: [("Accept-Language", "en")]).header("X-Cache") == "HIT")
        }
    }

    @Test func aSoftPurgeRevalidatesWithTheOriginAndA304KeepsTheBody() async throws {
        try await withInvalidationHarness { harness in
            Self.varying(harness, "/s")
            _ = try harness.fetch("/s", headers: [("Accept-Language", "en")])
            #expect(await harness.settle())
            #expect(try harness.fetch("/s", headers: [("Accept-Language", "en")]).header("X-Cache") == "HIT")
            let purged = try harness.purge("url=" + harness.origin.url("/s").percentEncoded() + "&soft=true")
            #expect(purged.json["purged"] as? Int == 1)
            #expect(purged.json["soft"] as? Bool == true)
            harness.clock.advance(by: 1)
            let revalidated = try harness.fetch("/s", headers: [("Accept-Language", "en")])
            #expect(revalidated.header("X-Cache") == "REVALIDATED")
            #expect(revalidated.text == "/s in en")
            #expect(harness.origin.requests(for: "/s").last?.headers["If-None-Match"] == "\"v1\"")
            #expect(await harness.settle())
            #expect(try harness.fetch("/s", headers: [("Accept-Language", "en")]).header("X-Cache") == "HIT")
            #expect(harness.origin.requestCount(for: "/s") == 2)
        }
    }

    @Test func aSoftPurgedEntryIsServedStaleWhileTheOriginIsDown() async throws {
        try await withInvalidationHarness { harness in
            harness.origin.respond(
                to: "/down", with: .ok("kept").header("Cache-Control", "max-age=600").header("Cache-Tag", "news"))
            _ = try harness.fetch("/down")
            #expect(await harness.settle())
            #expect(try harness.purge("tag=news&soft=true").json["purged"] as? Int == 1)
            #expect(try harness.meta("/down")["staleSince"] as? String != nil)
            harness.origin.stop()
            harness.clock.advance(by: 5)
            let stale = try harness.fetch("/down")
            #expect(stale.status == 200)
            #expect(stale.text == "kept")
            #expect(stale.header("X-Cache") == "STALE")
            #expect(stale.header("Cache-Status")?.contains("stale-if-disconnected") == true)
        }
    }

    @Test func aPurgeWhileAMatchingBodyIsBeingStoredLeavesItStale() async throws {
        try await withInvalidationHarness { harness in
            let body = String(repeating: "x", count: 12_000)
            harness.origin.respond(
                to: "/slow",
                sequence: [
                    .ok(body).header("Cache-Control", "max-age=600").header("Surrogate-Key", "sale").header(
                        "ETag", "\"s\""
                    )
                    .trickled(chunkSize: 4000, every: .milliseconds(1500)),
                    .status(304, headers: [("ETag", "\"s\""), ("Cache-Control", "max-age=600")]),
                ])
            let fetches = BackgroundWork { try harness.fetch("/slow").text }
            // Under way, its head (and tags) received: the purge finds nothing stored yet.
            let purged = harness.purgeWhileFetching("/slow", "tag=sale")
            #expect(try await purged.value() == 0)
            let first = try await fetches.value()
            #expect(first == body)
            #expect(await harness.settle())
            // Committed after the purge that matched it: not fresh, so the next request revalidates.
            let next = try harness.fetch("/slow")
            #expect(next.header("X-Cache") == "REVALIDATED")
            #expect(next.text == body)
        }
    }

    @Test func aPurgeAfterTheRequestLeftButBeforeItsAnswerCameLeavesTheAnswerStale() async throws {
        try await withInvalidationHarness { harness in
            let body = String(repeating: "z", count: 3_000)
            harness.origin.respond(
                to: "/late",
                sequence: [
                    // The head comes 1.5 s after the request: the purge runs before any writer began.
                    .ok(body).header("Cache-Control", "max-age=600").header("ETag", "\"l\"").delayed(
                        .milliseconds(1500)),
                    .status(304, headers: [("ETag", "\"l\""), ("Cache-Control", "max-age=600")]),
                ])
            let fetch = BackgroundWork { try harness.fetch("/late").text }
            let purged = harness.purgeWhileFetching(
                "/late", "prefix=" + harness.origin.url("/").percentEncoded())
            #expect(try await purged.value() == 0)
            #expect(try await fetch.value() == body)
            #expect(await harness.settle())
            // The answer left the origin before the purge was made, so it may predate what was purged.
            let next = try harness.fetch("/late")
            #expect(next.header("X-Cache") == "REVALIDATED")
            #expect(next.text == body)
        }
    }

    @Test func aPurgeThatDoesNotMatchABodyBeingStoredLeavesItFresh() async throws {
        try await withInvalidationHarness { harness in
            let body = String(repeating: "y", count: 12_000)
            harness.origin.respond(
                to: "/slow",
                with: .ok(body).header("Cache-Control", "max-age=600").header("Surrogate-Key", "sale")
                    .trickled(chunkSize: 4000, every: .milliseconds(1500)))
            let fetch = BackgroundWork { try harness.fetch("/slow").text }
            let purged = harness.purgeWhileFetching("/slow", "tag=not-sale")
            #expect(try await purged.value() == 0)
            #expect(try harness.purge("host=elsewhere.example").json["purged"] as? Int == 0)
            let fetched = try await fetch.value()
            #expect(fetched == body)
            #expect(await harness.settle())
            #expect(try harness.fetch("/slow").header("X-Cache") == "HIT")
            #expect(harness.origin.requestCount(for: "/slow") == 1)
        }
    }
}

/// Blocking work run on a thread of its own, not on the test's cooperative pool (which the blocking socket
/// reads of tests running in parallel can starve for seconds), awaited with a timeout.
final class BackgroundWork<Value: Sendable>: Sendable {
    private let result = Mutex<Result<Value, any Error>?>(nil)

    init(_ body: @escaping @Sendable () throws -> Value) {
        Thread.detachNewThread { [self] in
            let outcome = Result { try body() }
            result.withLock { $0 = outcome }
        }
    }

    func value() async throws -> Value {
        _ = await waitUntil(timeout: .seconds(30)) { result.withLock { $0 != nil } }
        guard let outcome = result.withLock({ $0 }) else { throw BackgroundWorkTimedOut() }
        return try outcome.get()
    }
}

/// Background work that did not finish within its wait.
struct BackgroundWorkTimedOut: Error {}

extension InvalidationHarness {
    /// Purges on a thread of its own once the origin has received the request for `path` (and 200 ms
    /// more, for its head to reach the store): the purge then runs while the body trickles in.
    func purgeWhileFetching(_ path: String, _ query: String) -> BackgroundWork<Int> {
        BackgroundWork { [self] in
            let deadline = Date().addingTimeInterval(20)
            while origin.requestCount(for: path) == 0, Date() < deadline { usleep(10_000) }
            usleep(200_000)
            return try purge(query).json["purged"] as? Int ?? -1
        }
    }
}
