import CacheCore
import Foundation
import HTTPCore
import Storage
import TestSupport
import Testing

/// RFC 9111 §4.3.5 through `/fetch`: a HEAD for a stale entry without validators is forwarded as a HEAD,
/// and the origin's 200 updates the stored response (matching) or invalidates it (not matching); other
/// statuses leave it. Entries with a validator keep the conditional GET; fresh ones never reach the origin.
@Suite struct FetchHeadUpdateTests {
    /// The origin answers GET with version 1 (fresh for 10 s, no validator) and HEAD as `head` says.
    static func serve(_ harness: FetchTestHarness, path: String, head: @escaping @Sendable () -> StubOriginResponse) {
        harness.origin.respond(to: path) { request in
            if request.method == "HEAD" { return head() }
            return .ok("body").header("Cache-Control", "max-age=10").header("X-Version", "1")
                .header("X-Stored-Only", "kept")
        }
    }

    /// Stores `path`, then lets it go stale.
    static func storeThenAge(_ harness: FetchTestHarness, _ path: String) async throws {
        let miss = try harness.fetch(path)
        #expect(miss.header("X-Cache") == "MISS")
        #expect(await harness.settle())
        harness.clock.advance(by: 20)
    }

    @Test func aMatching200UpdatesTheStoredFieldsAndFreshness() async throws {
        try await withFetchHarness { harness in
            Self.serve(harness, path: "/h") {
                .ok("body").header("Cache-Control", "max-age=1000").header("X-Version", "2")
            }
            try await Self.storeThenAge(harness, "/h")
            let head = try harness.fetch("/h", method: "HEAD")
            #expect(head.status == 200)
            // Answered from the updated entry: the HEAD's fields, and the stored ones it did not repeat.
            #expect(head.header("X-Cache") == "REVALIDATED")
            #expect(head.header("X-Version") == "2")
            #expect(head.header("X-Stored-Only") == "kept")
            #expect(head.header("Cache-Status")?.contains("fwd-status=200") == true)
            #expect(head.body.isEmpty)
            #expect(harness.origin.requests(for: "/h").map(\.method) == ["GET", "HEAD"])

            let hit = try harness.fetch("/h")
            #expect(hit.status == 200)
            #expect(hit.header("X-Cache") == "HIT")
            #expect(hit.header("X-Version") == "2")
            #expect(hit.header("Cache-Control") == "max-age=1000")
            #expect(hit.text == "body")
            #expect(harness.origin.requestCount(for: "/h") == 2)
        }
    }

    @Test(arguments: [
        ("etag", [("ETag", "\"v2\"")], "body"),
        ("last-modified", [("Last-Modified", "Sun, 06 Nov 1994 08:49:37 GMT")], "body"),
        ("content-length", [], "a longer body"),
    ])
    func a200DescribingAnotherRepresentationDeletesTheEntry(
        reason: String, fields: [(String, String)], body: String
    ) async throws {
        try await withFetchHarness { harness in
            Self.serve(harness, path: "/d") {
                var answer = StubOriginResponse.ok(body).header("Cache-Control", "max-age=1000")
                for (name, value) in fields { answer = answer.header(name, value) }
                return answer
            }
            try await Self.storeThenAge(harness, "/d")
            let key = try #require(CacheKey(hex: harness.key("/d")))
            #expect(try harness.store.entry(for: key) != nil)
            let head = try harness.fetch("/d", method: "HEAD")
            #expect(head.status == 200, "\(reason)")
            // The origin's answer, relayed: nothing stored answers for it any more.
            #expect(head.header("X-Cache") == "MISS", "\(reason)")
            #expect(head.header("X-Stored-Only") == nil, "\(reason)")
            #expect(try harness.store.entry(for: key) == nil, "\(reason): the stored response is gone")
            let next = try harness.fetch("/d")
            #expect(next.header("X-Cache") == "MISS", "\(reason)")
            #expect(harness.origin.requests(for: "/d").map(\.method) == ["GET", "HEAD", "GET"], "\(reason)")
        }
    }

    @Test(arguments: [410, 404, 500])
    func aHeadAnsweredWithAnotherStatusLeavesTheEntryAsItWas(status: Int) async throws {
        try await withFetchHarness { harness in
            Self.serve(harness, path: "/g") {
                .status(status, headers: [("Cache-Control", "max-age=1000"), ("X-Version", "2")])
            }
            try await Self.storeThenAge(harness, "/g")
            let head = try harness.fetch("/g", method: "HEAD")
            #expect(head.status == status)
            #expect(head.header("X-Cache") == "MISS")
            let key = try #require(CacheKey(hex: harness.key("/g")))
            let entry = try #require(try harness.store.entry(for: key))
            #expect(entry.headers["X-Version"] == "1")
            #expect(entry.headers["Cache-Control"] == "max-age=10")
            // Still stale: the next GET goes to the origin.
            _ = try harness.fetch("/g")
            #expect(harness.origin.requests(for: "/g").map(\.method) == ["GET", "HEAD", "GET"])
        }
    }

    @Test func aStaleEntryWithAValidatorIsStillRevalidatedWithAConditionalGet() async throws {
        try await withFetchHarness { harness in
            harness.origin.respond(to: "/v") { request in
                if request.headers["If-None-Match"] == "\"v1\"" {
                    return .status(304, headers: [("ETag", "\"v1\""), ("Cache-Control", "max-age=1000")])
                }
                return .ok("body").header("Cache-Control", "max-age=10").header("ETag", "\"v1\"")
            }
            try await Self.storeThenAge(harness, "/v")
            let head = try harness.fetch("/v", method: "HEAD")
            #expect(head.status == 200)
            #expect(head.header("X-Cache") == "REVALIDATED")
            #expect(harness.origin.requests(for: "/v").map(\.method) == ["GET", "GET"])
        }
    }

    @Test func aHeadForAFreshEntryIsAHitAndNeverReachesTheOrigin() async throws {
        try await withFetchHarness { harness in
            Self.serve(harness, path: "/f") { .ok("body").header("X-Version", "2") }
            _ = try harness.fetch("/f")
            #expect(await harness.settle())
            let head = try harness.fetch("/f", method: "HEAD")
            #expect(head.header("X-Cache") == "HIT")
            #expect(head.header("X-Version") == "1")
            #expect(harness.origin.requests(for: "/f").map(\.method) == ["GET"])
        }
    }
}
