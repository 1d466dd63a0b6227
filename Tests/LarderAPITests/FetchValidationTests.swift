import CacheCore
import Foundation
import HTTPCore
import LarderAPI
import Storage
import TestSupport
import Testing

/// Revalidation with the origin (RFC 9111 §4.3), the caller's own conditionals, ranges, encodings,
/// request directives and `Vary` on answers from the store.
@Suite struct FetchValidationTests {
    /// An origin path answering 304 to `If-None-Match: "v1"`, else the full response.
    static func validating(_ harness: FetchTestHarness, path: String, body: String, maxAge: Int = 10) {
        harness.origin.respond(to: path) { request in
            if request.headers["If-None-Match"] == "\"v1\"" {
                return .status(304, headers: [("ETag", "\"v1\""), ("Cache-Control", "max-age=\(maxAge)")])
            }
            return .ok(body).header("ETag", "\"v1\"").header("Cache-Control", "max-age=\(maxAge)")
        }
    }

    @Test func staleEntryIsRevalidatedAnd304ServesTheStoredBody() async throws {
        try await withFetchHarness { harness in
            Self.validating(harness, path: "/v", body: "validated body")
            _ = try harness.fetch("/v")
            #expect(await harness.settle())
            harness.clock.advance(by: 30)
            let revalidated = try harness.fetch("/v")
            #expect(revalidated.status == 200)
            #expect(revalidated.text == "validated body")
            #expect(revalidated.header("X-Cache") == "REVALIDATED")
            #expect(revalidated.header("Cache-Status")?.contains("fwd-status=304") == true)
            #expect(harness.origin.requestCount(for: "/v") == 2)
            #expect(harness.origin.requests(for: "/v").last?.headers["If-None-Match"] == "\"v1\"")
            #expect(await harness.settle())
            // The 304 refreshed the entry: fresh again for max-age.
            harness.clock.advance(by: 5)
            let hit = try harness.fetch("/v")
            #expect(hit.header("X-Cache") == "HIT")
            #expect(hit.header("Age") == "5")
            #expect(harness.origin.requestCount(for: "/v") == 2)
        }
    }

    @Test func fullResponseToRevalidationReplacesTheEntry() async throws {
        try await withFetchHarness { harness in
            harness.origin.respond(
                to: "/r",
                sequence: [
                    .ok("old").header("ETag", "\"v1\"").header("Cache-Control", "max-age=10"),
                    .ok("new").header("ETag", "\"v2\"").header("Cache-Control", "max-age=10"),
                ])
            #expect(try harness.fetch("/r").text == "old")
            #expect(await harness.settle())
            harness.clock.advance(by: 30)
            let replaced = try harness.fetch("/r")
            #expect(replaced.text == "new")
            #expect(replaced.header("X-Cache") == "MISS")
            #expect(await harness.settle())
            let hit = try harness.fetch("/r")
            #expect(hit.text == "new")
            #expect(hit.header("ETag") == "\"v2\"")
            #expect(harness.origin.requestCount(for: "/r") == 2)
        }
    }

    @Test(arguments: [
        ("If-None-Match", "\"v1\""), ("If-None-Match", "W/\"v1\", \"other\""),
        ("If-Modified-Since", "Sun, 06 Nov 2094 08:49:37 GMT"),
    ])
    func callersConditionalOnAHitIs304(name: String, value: String) async throws {
        try await withFetchHarness { harness in
            harness.origin.respond(
                to: "/c",
                with: .ok("c").header("ETag", "\"v1\"").header("Last-Modified", "Sun, 06 Nov 1994 08:49:37 GMT")
                    .header("Cache-Control", "max-age=60"))
            _ = try harness.fetch("/c")
            #expect(await harness.settle())
            let response = try harness.fetch("/c", headers: [(name, value)])
            #expect(response.status == 304)
            #expect(response.header("ETag") == "\"v1\"")
            #expect(response.header("X-Cache") == "HIT")
            #expect(response.body.isEmpty)
            let mismatch = try harness.fetch("/c", headers: [("If-None-Match", "\"v9\"")])
            #expect(mismatch.status == 200)
            #expect(harness.origin.requestCount(for: "/c") == 1)
        }
    }

    /// RFC 9111 §4.3.2: without `Last-Modified`, `If-Modified-Since` is compared with the stored `Date`
    /// (the cache-tests case `conditional-lm-fresh-no-lm` asks 304 for a date 3000 s before it, which
    /// RFC 9110 §13.1.3 answers 200: the representation is newer than the caller's copy).
    @Test func ifModifiedSinceWithoutLastModifiedIsComparedWithTheStoredDate() async throws {
        try await withFetchHarness { harness in
            let date = Int64(harness.clock.now.timeIntervalSince1970)
            func httpDate(_ offset: Int64) -> String { HTTPDate(secondsSinceEpoch: date + offset).imfFixdate }
            harness.origin.respond(
                to: "/d", with: .ok("d").header("Date", httpDate(0)).header("Cache-Control", "max-age=600"))
            _ = try harness.fetch("/d")
            #expect(await harness.settle())
            for (offset, status) in [(0, 304), (3000, 304), (-1, 200), (-3000, 200)] as [(Int64, Int)] {
                let response = try harness.fetch("/d", headers: [("If-Modified-Since", httpDate(offset))])
                #expect(response.status == status, "If-Modified-Since Date\(offset >= 0 ? "+" : "")\(offset)")
                #expect(response.header("X-Cache") == "HIT")
            }
            // An invalid date, or one in the wrong case, is ignored (RFC 9110 §13.1.3): the whole body.
            let wrongCase = httpDate(0).uppercased()
            #expect(try harness.fetch("/d", headers: [("If-Modified-Since", wrongCase)]).status == 200)
            #expect(harness.origin.requestCount(for: "/d") == 1)
        }
    }

    @Test func rangeOnAHitIs206AndUnsatisfiableIs416() async throws {
        try await withFetchHarness { harness in
            let body = CacheCoreFixtures.randomBody(length: 10_000)
            harness.origin.respond(to: "/r", with: .ok(bytes: body).header("Cache-Control", "max-age=60"))
            _ = try harness.fetch("/r")
            #expect(await harness.settle())
            let partial = try harness.fetch("/r", headers: [("Range", "bytes=5000-5099")])
            #expect(partial.status == 206)
            #expect(partial.header("Content-Range") == "bytes 5000-5099/10000")
            #expect(sameBytes(partial.body, Array(body[5000..<5100])))
            let unsatisfiable = try harness.fetch("/r", headers: [("Range", "bytes=20000-")])
            #expect(unsatisfiable.status == 416)
            #expect(unsatisfiable.header("Content-Range") == "bytes */10000")
            #expect(harness.origin.requestCount(for: "/r") == 1)
        }
    }

    @Test func gzipAndIdentityCallersGetTheirEncodingFromOneEntry() async throws {
        try await withFetchHarness { harness in
            let body = CacheCoreFixtures.compressibleBody(length: 50_000)
            harness.origin.respond(
                to: "/t", with: .ok(bytes: body, contentType: "text/plain").header("Cache-Control", "max-age=60"))
            _ = try harness.fetch("/t")
            #expect(await harness.settle())
            let gzip = try harness.fetch("/t", headers: [("Accept-Encoding", "gzip")])
            #expect(gzip.header("Content-Encoding") == "gzip")
            #expect(try sameBytes(gunzip(gzip.body), body))
            let identity = try harness.fetch("/t", headers: [("Accept-Encoding", "identity")])
            #expect(identity.header("Content-Encoding") == nil)
            #expect(sameBytes(identity.body, body))
            #expect(harness.origin.requestCount(for: "/t") == 1)
        }
    }

    @Test func originGzipIsStoredAndReplayedAsSent() async throws {
        try await withFetchHarness { harness in
            let text = String(repeating: "gzip me ", count: 1000)
            harness.origin.respond(to: "/g", with: .ok(text).gzipped().header("Cache-Control", "max-age=60"))
            let miss = try harness.fetch("/g", headers: [("Accept-Encoding", "gzip")])
            #expect(miss.header("Content-Encoding") == "gzip")
            #expect(await harness.settle())
            let hit = try harness.fetch("/g", headers: [("Accept-Encoding", "gzip")])
            #expect(hit.header("X-Cache") == "HIT")
            #expect(hit.header("Content-Encoding") == "gzip")
            #expect(try sameBytes(gunzip(hit.body), Array(text.utf8)))
            #expect(harness.origin.requestCount(for: "/g") == 1)
        }
    }

    @Test func varyKeepsOneEntryPerVariant() async throws {
        try await withFetchHarness { harness in
            harness.origin.respond(to: "/l") { request in
                .ok("in \(request.headers["Accept-Language"] ?? "none")").header("Vary", "Accept-Language")
                    .header("Cache-Control", "max-age=60")
            }
            #expect(try harness.fetch("/l", headers: [("Accept-Language", "fr")]).text == "in fr")
            #expect(await harness.settle())
            let german = try harness.fetch("/l", headers: [("Accept-Language", "de")])
            #expect(german.text == "in de")
            #expect(german.header("Cache-Status")?.contains("fwd=vary-miss") == true)
            #expect(await harness.settle())
            let french = try harness.fetch("/l", headers: [("Accept-Language", "fr")])
            #expect(french.text == "in fr")
            #expect(french.header("X-Cache") == "HIT")
            #expect(try harness.fetch("/l", headers: [("Accept-Language", "de")]).text == "in de")
            #expect(harness.origin.requestCount(for: "/l") == 2)
        }
    }

    /// Request directives on a stored entry aged 20 s with `max-age=60` (validator present).
    @Test(arguments: [
        ("no-cache", "REVALIDATED", 2), ("max-age=10", "REVALIDATED", 2), ("max-age=30", "HIT", 1),
        ("min-fresh=50", "REVALIDATED", 2), ("min-fresh=30", "HIT", 1),
    ])
    func requestDirectivesDecideWhetherTheOriginIsAsked(directive: String, xCache: String, originRequests: Int)
        async throws
    {
        try await withFetchHarness { harness in
            Self.validating(harness, path: "/d", body: "d", maxAge: 60)
            _ = try harness.fetch("/d")
            #expect(await harness.settle())
            harness.clock.advance(by: 20)
            let response = try harness.fetch("/d", headers: [("Cache-Control", directive)])
            #expect(response.text == "d")
            #expect(response.header("X-Cache") == xCache)
            #expect(harness.origin.requestCount(for: "/d") == originRequests)
        }
    }

    @Test func maxStaleServesAStaleEntryWithoutTheOrigin() async throws {
        try await withFetchHarness { harness in
            harness.origin.respond(to: "/m", with: .ok("m").header("Cache-Control", "max-age=10"))
            _ = try harness.fetch("/m")
            #expect(await harness.settle())
            harness.clock.advance(by: 40)
            let response = try harness.fetch("/m", headers: [("Cache-Control", "max-stale=60")])
            #expect(response.text == "m")
            #expect(response.header("X-Cache") == "HIT")
            #expect(response.header("Age") == "40")
            #expect(harness.origin.requestCount(for: "/m") == 1)
        }
    }

    @Test func onlyIfCachedIs504WhenNothingFitsAndAHitOtherwise() async throws {
        try await withFetchHarness { harness in
            harness.origin.respond(to: "/o", with: .ok("o").header("Cache-Control", "max-age=60"))
            let cold = try harness.fetch("/o", headers: [("Cache-Control", "only-if-cached")])
            #expect(cold.status == 504)
            #expect(cold.text.contains("only-if-cached"))
            #expect(harness.origin.requestCount(for: "/o") == 0)
            _ = try harness.fetch("/o")
            #expect(await harness.settle())
            let warm = try harness.fetch("/o", headers: [("Cache-Control", "only-if-cached")])
            #expect(warm.status == 200)
            #expect(warm.header("X-Cache") == "HIT")
            harness.clock.advance(by: 100)
            #expect(try harness.fetch("/o", headers: [("Cache-Control", "only-if-cached")]).status == 504)
            #expect(harness.origin.requestCount(for: "/o") == 1)
        }
    }
}
