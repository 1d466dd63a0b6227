import CacheCore
import CachePolicy
import Foundation
import HTTPCore
import HTTPServer
import LarderAPI
import LarderTesting
import Storage
import TestSupport
import Testing

/// Methods other than GET and HEAD on `/fetch` (RFC 9111 §4.4): forwarded with their content, answered
/// BYPASS, never stored; a non-error answer to an unsafe one invalidates the target and its same-origin
/// `Location` / `Content-Location`, in SQLite and in memory, through the purge by URL.
@Suite struct FetchUnsafeMethodTests {
    /// A response stored for 600 s that varies on `Accept-Language`; any other method is answered by
    /// `unsafe` (201 by default) and echoes nothing.
    static func route(
        _ harness: InvalidationHarness, _ path: String, unsafe: StubOriginResponse = .status(201)
    ) {
        harness.origin.respond(to: path) { request in
            guard request.method == "GET" || request.method == "HEAD" else { return unsafe }
            if request.headers["If-None-Match"] == "\"v1\"" {
                return .status(304, headers: [("ETag", "\"v1\""), ("Cache-Control", "max-age=600")])
            }
            return .ok("\(path) in \(request.headers["Accept-Language"] ?? "none")").header("ETag", "\"v1\"")
                .header("Cache-Control", "max-age=600").header("Vary", "Accept-Language")
        }
    }

    /// Stores `path` for each language and checks that each is then a HIT.
    static func store(_ harness: InvalidationHarness, _ path: String, languages: [String] = ["en"]) async throws {
        for language in languages { _ = try harness.fetch(path, headers: [("Accept-Language", language)]) }
        #expect(await harness.settle())
        for language in languages {
            #expect(try harness.fetch(path, headers: [("Accept-Language", language)]).header("X-Cache") == "HIT")
        }
    }

    @Test(arguments: ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "PROPFIND", "M-SEARCH"])
    func everyOtherMethodIsForwardedWithItsBodyAndAnsweredBypass(method: String) async throws {
        try await withInvalidationHarness { harness in
            harness.origin.respond(to: "/thing") { request in
                .ok("got \(request.method) \(String(decoding: request.body, as: UTF8.self))").header(
                    "Cache-Control", "max-age=600")
            }
            let answer = try harness.send(
                method, "/thing", body: "payload \(method)", headers: [("Content-Type", "text/x-test")])
            #expect(answer.status == 200)
            #expect(answer.text == "got \(method) payload \(method)")
            #expect(answer.header("X-Cache") == "BYPASS")
            #expect(answer.header("Cache-Status") == "Larder; fwd=method; fwd-status=200")
            let received = try #require(harness.origin.lastRequest)
            #expect(received.method == method)
            #expect(String(decoding: received.body, as: UTF8.self) == "payload \(method)")
            #expect(received.headers["Content-Type"] == "text/x-test")
            #expect(received.headers["Via"]?.hasSuffix("larder") == true)
            // Never stored, so never coalesced or reused: the next GET goes to the origin.
            #expect(await harness.settle())
            #expect(try harness.store.stats().entryCount == 0)
            #expect(try harness.fetch("/thing").header("X-Cache") == "MISS")
        }
    }

    @Test func aPostWithoutContentSendsAnEmptyBodyAndNoInventedType() async throws {
        try await withInvalidationHarness { harness in
            harness.origin.respond(to: "/empty", with: .status(204))
            #expect(try harness.send("POST", "/empty", body: nil).status == 204)
            let received = try #require(harness.origin.lastRequest)
            #expect(received.method == "POST")
            #expect(received.headers["Content-Length"] == "0")
            #expect(received.headers["Content-Type"] == nil)
            #expect(received.headers["Expect"] == nil)
            #expect(try harness.send("DELETE", "/empty", body: nil).status == 204)
            #expect(harness.origin.lastRequest?.headers["Content-Length"] == nil)
        }
    }

    @Test(arguments: [false, true])
    func aBodyOverTheBoundIs413AndNothingReachesTheOrigin(chunked: Bool) async throws {
        try await withInvalidationHarness(maxBodyBytes: 1000) { harness in
            harness.origin.respond(to: "/big", with: .status(201))
            let body = String(repeating: "b", count: 1001)
            let answer =
                chunked
                ? try harness.sendChunked("POST", "/big", body: body) : try harness.send("POST", "/big", body: body)
            #expect(answer.status == 413)
            #expect(answer.header("Content-Type") == "application/problem+json")
            #expect(try harness.send("POST", "/big", body: String(repeating: "b", count: 1000)).status == 201)
            #expect(harness.origin.requestCount(for: "/big") == 1)
        }
    }

    @Test func aSuccessfulPostInvalidatesEveryVariantOfTheTarget() async throws {
        try await withInvalidationHarness { harness in
            Self.route(harness, "/page")
            Self.route(harness, "/other")
            try await Self.store(harness, "/page", languages: ["en", "fr", "de"])
            try await Self.store(harness, "/other")
            let answer = try harness.send("POST", "/page", body: "x=1")
            #expect(answer.status == 201)
            #expect(answer.header("X-Cache") == "BYPASS")
            for language in ["en", "fr", "de"] {
                #expect(
                    try harness.fetch("/page", headers: [("Accept-Language", language)]).header("X-Cache") == "MISS")
            }
            #expect(try harness.fetch("/other", headers: [("Accept-Language", "en")]).header("X-Cache") == "HIT")
        }
    }

    @Test func theInvalidationReachesTheMemoryTier() async throws {
        try await withInvalidationHarness { harness in
            harness.origin.respond(to: "/hot") { request in
                request.method == "PUT" ? .status(204) : .ok("hot").header("Cache-Control", "max-age=600")
            }
            _ = try harness.fetch("/hot")
            #expect(await harness.settle())
            #expect(try harness.fetch("/hot").header("X-Cache") == "HIT")
            // Gone from SQLite behind the service's back: from now on only memory can say HIT.
            #expect(try harness.store.delete(CacheKey.make(canonicalURL: harness.origin.url("/hot"))))
            #expect(try harness.fetch("/hot").header("X-Cache") == "HIT")
            #expect(try harness.send("PUT", "/hot", body: "new").status == 204)
            #expect(try harness.fetch("/hot").header("X-Cache") == "MISS")
        }
    }

    @Test func theTargetIsKeyedByTheOwningFiltersRules() async throws {
        let decision = FilterDecision(
            filterName: "no-tracking", canonicalization: URLCanonicalizer.Options(dropParams: [GlobPattern("utm_*")]))
        try await withInvalidationHarness(decider: FixedDecider(decision: decision)) { harness in
            Self.route(harness, "/item")
            try await Self.store(harness, "/item?id=1&utm_source=a")
            #expect(try harness.send("DELETE", "/item?id=1&utm_medium=b", body: nil).status == 201)
            #expect(try harness.fetch("/item?id=1", headers: [("Accept-Language", "en")]).header("X-Cache") == "MISS")
        }
    }

    @Test func sameOriginLocationAndContentLocationAreInvalidated() async throws {
        try await withInvalidationHarness { harness in
            let contentLocation = harness.origin.url("/b")
            Self.route(
                harness, "/form",
                unsafe: .status(201, headers: [("Location", "a"), ("Content-Location", contentLocation)]))
            for path in ["/a", "/b", "/c"] { Self.route(harness, path) }
            for path in ["/a", "/b", "/c"] { try await Self.store(harness, path) }
            #expect(try harness.send("POST", "/form", body: "new").status == 201)
            // `a` resolves against the target: /a. /c is named by nothing.
            for (path, expected) in [("/a", "MISS"), ("/b", "MISS"), ("/c", "HIT")] {
                #expect(try harness.fetch(path, headers: [("Accept-Language", "en")]).header("X-Cache") == expected)
            }
        }
    }

    @Test func anotherOriginsLocationIsNotInvalidated() async throws {
        let other = try StubOrigin()
        defer { other.stop() }
        try await withInvalidationHarness { harness in
            // The same host on another port is another origin (RFC 6454).
            let elsewhere = other.url("/x")
            Self.route(harness, "/form", unsafe: .status(303, headers: [("Location", elsewhere)]))
            other.respond(to: "/x", with: .ok("x").header("Cache-Control", "max-age=600"))
            _ = try harness.request("GET", "/fetch?url=" + elsewhere.percentEncoded())
            #expect(await harness.settle())
            #expect(try harness.send("POST", "/form", body: "go").status == 303)
            let again = try harness.request("GET", "/fetch?url=" + elsewhere.percentEncoded())
            #expect(again.header("X-Cache") == "HIT")
        }
    }

    @Test(arguments: [400, 404, 409, 500, 503])
    func anErrorAnswerInvalidatesNothing(status: Int) async throws {
        try await withInvalidationHarness { harness in
            Self.route(harness, "/keep", unsafe: .status(status, headers: [("Location", "/keep")]))
            try await Self.store(harness, "/keep")
            #expect(try harness.send("POST", "/keep", body: "x").status == status)
            #expect(try harness.fetch("/keep", headers: [("Accept-Language", "en")]).header("X-Cache") == "HIT")
        }
    }

    @Test(arguments: ["OPTIONS", "TRACE", "QUERY"])
    func aSafeMethodInvalidatesNothing(method: String) async throws {
        try await withInvalidationHarness { harness in
            Self.route(harness, "/safe", unsafe: .status(200))
            try await Self.store(harness, "/safe")
            #expect(try harness.send(method, "/safe", body: nil).status == 200)
            #expect(harness.origin.lastRequest?.method == method)
            #expect(try harness.fetch("/safe", headers: [("Accept-Language", "en")]).header("X-Cache") == "HIT")
        }
    }

    @Test func getAndHeadAreStillAnsweredFromTheCache() async throws {
        try await withInvalidationHarness { harness in
            Self.route(harness, "/read")
            _ = try harness.fetch("/read", headers: [("Accept-Language", "en")])
            #expect(await harness.settle())
            let head = try harness.request(
                "HEAD", "/fetch?url=" + harness.origin.url("/read").percentEncoded(),
                headers: [("Accept-Language", "en")])
            #expect(head.header("X-Cache") == "HIT")
            #expect(try harness.fetch("/read", headers: [("Accept-Language", "en")]).header("X-Cache") == "HIT")
            #expect(harness.origin.requestCount(for: "/read") == 1)
        }
    }

    @Test func unknownMethodsElsewhereAreStill501() async throws {
        try await withInvalidationHarness { (harness) async throws in
            #expect(try harness.request("FROB", "/cache").status == 501)
            #expect(try harness.request("POST", "/cache").status == 405)
            // On /fetch the same method is forwarded; the URL is still checked first.
            #expect(try harness.request("FROB", "/fetch?url=ftp%3A%2F%2Fx").status == 400)
        }
    }

    @Test func aCallerTokenAdmitsAPostAndASignedURLDoesNot() async throws {
        try await withFetchHarness(fetchAccess: FetchAccessIntegrationTests.access()) { harness in
            harness.origin.respond(to: "/form", with: .status(201))
            let signed = FetchAccessIntegrationTests.signedPath(harness, "/form")
            let refused = try harness.http.request("POST", signed, body: "x")
            #expect(refused.status == 403)
            #expect(refused.text.contains("signature-invalid"))
            #expect(harness.origin.requestCount == 0)
            let token = FetchAccessIntegrationTests.token
            let admitted = try harness.http.request(
                "POST", harness.fetchPath("/form"),
                headers: [(FetchAccess.tokenField, String(decoding: token.secret, as: UTF8.self))], body: "x")
            #expect(admitted.status == 201)
            #expect(admitted.header("X-Cache") == "BYPASS")
            #expect(harness.origin.lastRequest?.headers[FetchAccess.tokenField] == nil)
        }
    }

    @Test func anAddressThePolicyRefusesIs403WithoutAConnection() async throws {
        try await withFetchHarness(allowNetworks: []) { harness in
            harness.origin.respond(to: "/form", with: .status(201))
            let refused = try harness.http.request("PUT", harness.fetchPath("/form"), body: "x")
            #expect(refused.status == 403)
            #expect(refused.text.contains("address-refused"))
            #expect(harness.origin.requestCount == 0)
        }
    }

    @Test func theLoopGuardAppliesToEveryMethod() async throws {
        try await withInvalidationHarness { harness in
            harness.origin.respond(to: "/loop", with: .status(201))
            let answer = try harness.send("POST", "/loop", body: "x", headers: [("Via", "1.1 larder")])
            #expect(answer.status == 508)
            #expect(harness.origin.requestCount(for: "/loop") == 0)
        }
    }
}

extension InvalidationHarness {
    /// Sends `method` to `/fetch?url=` for a stub origin path through the test's client, with `body` as
    /// `Content-Length` content (`nil`: no body and no length).
    func send(_ method: String, _ path: String, body: String?, headers: [(String, String)] = []) throws
        -> RawHTTPResponse
    {
        try client.request(
            method, "/fetch?url=" + origin.url(path).percentEncoded(), headers: headers,
            body: body.map { Array($0.utf8) })
    }

    /// The same with `body` sent in chunked framing, in pieces of 100 bytes.
    func sendChunked(_ method: String, _ path: String, body: String) throws -> RawHTTPResponse {
        let client = try RawSocketClient(port: self.client.port, timeout: 30)
        defer { client.close() }
        var text = "\(method) /fetch?url=\(origin.url(path).percentEncoded()) HTTP/1.1\r\n"
        text += "Host: test\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n"
        var rest = Substring(body)
        while !rest.isEmpty {
            let piece = rest.prefix(100)
            text += String(piece.utf8.count, radix: 16) + "\r\n" + piece + "\r\n"
            rest = rest.dropFirst(piece.count)
        }
        // The server may answer 413 and close before reading it all.
        try? client.send(text + "0\r\n\r\n")
        return try client.readResponse()
    }
}
