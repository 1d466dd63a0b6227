import CacheCore
import CachePolicy
import Foundation
import HTTPCore
import Storage
import TestSupport
import Testing
import Upstream

@testable import LarderAPI

/// The core flow of `GET|HEAD /fetch`: validation, loop guard, filter actions, miss then hit, storage
/// rules, origin errors. Each test checks what the caller got and how many requests the origin saw.
@Suite struct FetchHandlerTests {
    static let badURLs: [String] = [
        "/fetch", "/fetch?url=", "/fetch?url=a&url=b", "/fetch?url=ftp%3A%2F%2Fexample.com%2F",
        "/fetch?url=http%3A%2F%2Fuser%40127.0.0.1%2F", "/fetch?url=http%3A%2F%2F127.0.0.1%3A70000%2F",
        "/fetch?url=relative%2Fpath", "/fetch?url=http%3A%2F%2F%2Fpath",
    ]

    @Test(arguments: badURLs) func invalidURLIsRefusedWith400(path: String) async throws {
        try await withFetchHarness { harness in
            let response = try harness.request("GET", path)
            #expect(response.status == 400)
            #expect(response.header("Content-Type") == "application/problem+json")
            #expect(response.text.contains("invalid-url"))
            #expect(harness.origin.requestCount == 0)
        }
    }

    @Test func requestCarryingOurViaIsALoop() async throws {
        try await withFetchHarness { harness in
            harness.origin.respond(to: "/a", with: .ok("a"))
            let response = try harness.fetch("/a", headers: [("Via", "1.1 edge, 1.1 larder")])
            #expect(response.status == 508)
            #expect(response.text.contains("loop-detected"))
            #expect(harness.origin.requestCount == 0)
        }
    }

    @Test func denyingFilterAnswers403WithoutFetching() async throws {
        try await withFetchHarness(decision: FilterDecision(filterName: "no", action: .deny)) { harness in
            harness.origin.respond(to: "/a", with: .ok("a"))
            let response = try harness.fetch("/a")
            #expect(response.status == 403)
            #expect(response.text.contains("denied-by-filter"))
            #expect(harness.origin.requestCount == 0)
        }
    }

    @Test func bypassFetchesEveryTimeAndStoresNothing() async throws {
        try await withFetchHarness(decision: .defaultBypass) { harness in
            harness.origin.respond(to: "/a", with: .ok("bypassed").header("Cache-Control", "max-age=600"))
            for _ in 0..<2 {
                let response = try harness.fetch("/a")
                #expect(response.status == 200)
                #expect(response.text == "bypassed")
                #expect(response.header("X-Cache") == "BYPASS")
            }
            #expect(await harness.settle())
            #expect(harness.origin.requestCount == 2)
            #expect(try harness.store.stats().entryCount == 0)
        }
    }

    @Test func bypassedHeadIsAHeadToTheOrigin() async throws {
        try await withFetchHarness(decision: .defaultBypass) { harness in
            harness.origin.respond(to: "/a", with: .ok("five!"))
            let response = try harness.fetch("/a", method: "HEAD")
            #expect(response.status == 200)
            #expect(response.header("Content-Length") == "5")
            #expect(response.header("X-Cache") == "BYPASS")
            #expect(harness.origin.requests(for: "/a").map(\.method) == ["HEAD"])
        }
    }

    @Test func missIsStoredAndTheNextRequestIsAHit() async throws {
        try await withFetchHarness { harness in
            let body = CacheCoreFixtures.randomBody(length: 20_000)
            harness.origin.respond(
                to: "/a", with: .ok(bytes: body, contentType: "image/x-test").header("Cache-Control", "max-age=60"))
            let miss = try harness.fetch("/a")
            #expect(miss.status == 200)
            #expect(sameBytes(miss.body, body))
            #expect(miss.header("X-Cache") == "MISS")
            #expect(miss.header("Cache-Status") == "Larder; fwd=uri-miss; fwd-status=200; stored")
            #expect(miss.header("X-Cache-Key") == harness.key("/a"))
            #expect(await harness.settle())
            harness.clock.advance(by: 10)
            let hit = try harness.fetch("/a")
            #expect(hit.status == 200)
            #expect(sameBytes(hit.body, body))
            #expect(hit.header("X-Cache") == "HIT")
            #expect(hit.header("Age") == "10")
            #expect(hit.header("Cache-Status") == "Larder; hit; ttl=50")
            #expect(hit.header("X-Cache-Key") == harness.key("/a"))
            #expect(hit.header("Content-Type") == "image/x-test")
            #expect(harness.origin.requestCount(for: "/a") == 1)
        }
    }

    @Test(arguments: [0, 1, 64 * 1024, 1 << 20, (1 << 20) + 1, 3_000_000])
    func hitReplaysBodiesOfEverySizeWhole(length: Int) async throws {
        try await withFetchHarness { harness in
            let body = CacheCoreFixtures.randomBody(length: length)
            harness.origin.respond(to: "/s", with: .ok(bytes: body).header("Cache-Control", "max-age=60"))
            let miss = try harness.fetch("/s")
            #expect(sameBytes(miss.body, body))
            #expect(await harness.settle())
            let hit = try harness.fetch("/s")
            #expect(hit.header("X-Cache") == "HIT")
            #expect(hit.header("Content-Length") == String(length))
            #expect(sameBytes(hit.body, body))
            #expect(harness.origin.requestCount(for: "/s") == 1)
        }
    }

    @Test func expiredEntryWithoutValidatorIsFetchedAgain() async throws {
        try await withFetchHarness { harness in
            harness.origin.respond(
                to: "/a",
                sequence: [
                    .ok("one").header("Cache-Control", "max-age=60"), .ok("two").header("Cache-Control", "max-age=60"),
                ])
            #expect(try harness.fetch("/a").text == "one")
            #expect(await harness.settle())
            harness.clock.advance(by: 61)
            let again = try harness.fetch("/a")
            #expect(again.text == "two")
            #expect(again.header("X-Cache") == "MISS")
            #expect(harness.origin.requestCount(for: "/a") == 2)
            #expect(await harness.settle())
            #expect(try harness.fetch("/a").text == "two")
            #expect(harness.origin.requestCount(for: "/a") == 2)
        }
    }

    @Test func heuristicFreshnessComesFromLastModified() async throws {
        try await withFetchHarness { harness in
            // Last-Modified 1000 s before the Date: 10% heuristic = 100 s of freshness.
            let date = HTTPDate(secondsSinceEpoch: Int64(CacheCoreFixtures.epoch.timeIntervalSince1970))
            let modified = HTTPDate(secondsSinceEpoch: date.secondsSinceEpoch - 1000)
            harness.origin.respond(
                to: "/h", with: .ok("h").header("Date", date.imfFixdate).header("Last-Modified", modified.imfFixdate))
            let miss = try harness.fetch("/h")
            #expect(miss.header("X-Cache") == "MISS")
            #expect(await harness.settle())
            harness.clock.advance(by: 90)
            let hit = try harness.fetch("/h")
            #expect(hit.header("X-Cache") == "HIT")
            #expect(harness.origin.requestCount(for: "/h") == 1)
        }
    }

    @Test(arguments: [
        ("no-store", "Cache-Control", "no-store"), ("private", "Cache-Control", "private, max-age=60"),
        ("set-cookie", "Set-Cookie", "a=b"),
    ])
    func unstorableResponseIsFetchedEveryTime(reason: String, name: String, value: String) async throws {
        try await withFetchHarness { harness in
            var response = StubOriginResponse.ok("x").header(name, value)
            if name != "Cache-Control" { response = response.header("Cache-Control", "max-age=60") }
            harness.origin.respond(to: "/n", with: response)
            let first = try harness.fetch("/n")
            #expect(first.header("X-Cache") == "MISS")
            #expect(first.header("Cache-Status")?.contains("detail=\"\(reason)\"") == true)
            #expect(await harness.settle())
            #expect(try harness.fetch("/n").header("X-Cache") == "MISS")
            #expect(harness.origin.requestCount(for: "/n") == 2)
        }
    }

    @Test func headMissAndHitCarryTheHeadersOnly() async throws {
        try await withFetchHarness { harness in
            harness.origin.respond(to: "/a", with: .ok("twelve bytes").header("Cache-Control", "max-age=60"))
            let miss = try harness.fetch("/a", method: "HEAD")
            #expect(miss.status == 200)
            #expect(miss.header("X-Cache") == "MISS")
            #expect(miss.header("Content-Length") == "12")
            #expect(miss.body.isEmpty)
            #expect(await harness.settle())
            let hit = try harness.fetch("/a", method: "HEAD")
            #expect(hit.header("X-Cache") == "HIT")
            #expect(hit.header("Content-Length") == "12")
            #expect(try harness.fetch("/a").text == "twelve bytes")
            #expect(harness.origin.requestCount(for: "/a") == 1)
            #expect(harness.origin.requests(for: "/a").first?.method == "GET")
        }
    }

    @Test func redirectIsStoredAndReplayedNotFollowed() async throws {
        try await withFetchHarness { harness in
            harness.origin.respond(
                to: "/old",
                with: .redirect(to: harness.origin.url("/new"), status: 301).header("Cache-Control", "max-age=600"))
            harness.origin.respond(to: "/new", with: .ok("new"))
            for expected in ["MISS", "HIT"] {
                let response = try harness.fetch("/old")
                #expect(response.status == 301)
                #expect(response.header("Location") == harness.origin.url("/new"))
                #expect(response.header("X-Cache") == expected)
                #expect(await harness.settle())
            }
            #expect(harness.origin.requestCount(for: "/old") == 1)
            #expect(harness.origin.requestCount(for: "/new") == 0)
        }
    }

    @Test func callersHeadersAreForwardedWithOurVia() async throws {
        try await withFetchHarness { harness in
            harness.origin.respond(to: "/a", with: .ok("a"))
            _ = try harness.fetch(
                "/a", headers: [("User-Agent", "AppleWebKit/605"), ("X-Trace", "t1"), ("Connection", "close, X-Trace")])
            let seen = try #require(harness.origin.lastRequest)
            #expect(seen.headers["User-Agent"] == "AppleWebKit/605")
            #expect(seen.headers["X-Trace"] == nil)
            #expect(seen.headers["Via"]?.hasSuffix("1.1 larder") == true)
        }
    }

    @Test func unreachableOriginIs502() async throws {
        try await withFetchHarness { harness in
            let response = try harness.request("GET", "/fetch?url=" + ("http://127.0.0.1:1/x").percentEncoded())
            #expect(response.status == 502)
            #expect(response.text.contains("origin-unreachable"))
        }
    }

    @Test func refusedAddressIs403() async throws {
        try await withFetchHarness { harness in
            // ::1 is loopback but outside the allowed 127.0.0.0/8: refused before connecting.
            let response = try harness.request("GET", "/fetch?url=" + ("http://[::1]:9/x").percentEncoded())
            #expect(response.status == 403)
            #expect(response.text.contains("address-refused"))
        }
    }

    @Test func silentOriginTimesOutWith504() async throws {
        try await withFetchHarness(limits: OriginLimits(totalTimeout: .milliseconds(300))) { harness in
            harness.origin.respond(to: "/slow", with: .silent)
            let response = try harness.fetch("/slow")
            #expect(response.status == 504)
            #expect(response.text.contains("origin-timeout"))
            #expect(harness.origin.requestCount(for: "/slow") == 1)
        }
    }

    @Test func bodyOverTheLimitIs502AndNotStored() async throws {
        try await withFetchHarness(limits: OriginLimits(totalTimeout: .seconds(5), maxBodyBytes: 1000)) { harness in
            harness.origin.respond(
                to: "/big", with: .ok(bytes: Array(repeating: 7, count: 5000)).header("Cache-Control", "max-age=60"))
            let response = try harness.fetch("/big")
            #expect(response.status == 502)
            #expect(response.text.contains("body-too-large"))
            #expect(await harness.settle())
            #expect(try harness.store.stats().entryCount == 0)
        }
    }

    @Test func firstBytesReachTheCallerBeforeTheLastOneLeavesTheOrigin() async throws {
        try await withFetchHarness { harness in
            // An endless body has no last byte: whatever the caller reads was streamed.
            harness.origin.respond(to: "/endless", with: .endless())
            let client = try harness.open("GET", harness.fetchPath("/endless"))
            defer { client.close() }
            let bytes = try client.readSome(upTo: 16_384)
            #expect(String(decoding: bytes, as: UTF8.self).hasPrefix("HTTP/1.1 200"))
            #expect(bytes.contains(0x61))
            #expect(harness.service.inFlightCount == 1)
        }
    }
}

/// The one-scan reading of the `url` query parameter.
@Suite struct FetchURLParameterTests {
    @Test(arguments: [
        ("url=http://a/b", "http://a/b"), ("url=http%3A%2F%2Fa%2Fb%3Fq%3D1", "http://a/b?q=1"),
        ("x=1&url=http://a/", "http://a/"), ("url=http://a/?q=1", "http://a/?q=1"), ("url=a+b", "a b"),
        ("url=", ""),
    ])
    func urlParameterIsFoundAndDecoded(query: String, expected: String) {
        #expect(FetchHandler.urlParameter(in: query) == expected)
    }

    @Test(arguments: [nil, "", "x=1", "url=a&url=b", "urls=a", "ur=a"] as [String?])
    func absentOrRepeatedURLParameterIsNil(query: String?) {
        #expect(FetchHandler.urlParameter(in: query) == nil)
    }
}
