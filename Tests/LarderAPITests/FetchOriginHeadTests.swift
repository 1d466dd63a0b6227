import CacheCore
import Foundation
import HTTPCore
import LarderTesting
import Storage
import TestSupport
import Testing
import Upstream

/// Which parts of an origin's answer reach the store and callers: interim 1xx heads reach the caller who
/// started the fetch (RFC 9110 §15.2) and never the store (RFC 9111 §3 stores final responses only);
/// every field of the final head is stored, `Content-Range` on a 200 included (RFC 9111 §3.1).
@Suite struct FetchOriginHeadTests {
    static let interimThenFinal =
        "HTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload; as=style\r\nX-Interim: test\r\n\r\n"
        + "HTTP/1.1 100 Continue\r\nX-Continue: yes\r\n\r\n"
        + "HTTP/1.1 200 OK\r\nCache-Control: max-age=600\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n"
        + "Connection: close\r\n\r\nfinal"

    @Test func interimResponsesReachTheCallerButAreNeitherStoredNorMergedIntoTheFinalAnswer() async throws {
        try await withFetchHarness { harness in
            harness.origin.respond(to: "/i", with: .raw(Self.interimThenFinal))
            let miss = try harness.fetch("/i")
            #expect(miss.status == 200)
            #expect(miss.text == "final")
            #expect(miss.header("X-Cache") == "MISS")
            // The 103 is relayed with its fields; the 100 answered libcurl's own request and is not.
            #expect(miss.interim.map(\.status) == [103])
            #expect(miss.interim.first?.header("Link") == "</s.css>; rel=preload; as=style")
            #expect(miss.interim.first?.header("X-Interim") == "test")
            #expect(miss.interim.first?.header("Date") == nil)
            #expect(miss.interim.first?.header("Content-Length") == nil)
            for name in ["X-Interim", "Link", "X-Continue"] { #expect(miss.header(name) == nil, "\(name) on the miss") }
            #expect(await harness.settle())
            let hit = try harness.fetch("/i")
            #expect(hit.status == 200)
            #expect(hit.text == "final")
            #expect(hit.header("X-Cache") == "HIT")
            #expect(hit.interim.isEmpty, "a hit replayed an interim response")
            for name in ["X-Interim", "Link", "X-Continue"] { #expect(hit.header(name) == nil, "\(name) on the hit") }
            let key = try #require(hit.header("X-Cache-Key").flatMap(CacheKey.init(hex:)))
            let entry = try #require(try harness.store.entry(for: key))
            #expect(entry.status.code == 200)
            #expect(!entry.headers.contains("X-Interim"))
            #expect(harness.origin.requestCount(for: "/i") == 1)
        }
    }

    /// RFC 9110 §15.2: interim responses go to the request that caused them; a caller who joins the shared
    /// fetch gets only the final response.
    @Test func onlyTheCallerWhoStartedAFetchGetsItsInterimResponses() async throws {
        try await withFetchHarness(
            limits: OriginLimits(totalTimeout: .seconds(120)), configuration: FetchLateJoinerTests.patient
        ) { harness in
            // The final response waits until the second caller has joined.
            let gate = OriginGate()
            harness.origin.respond(
                to: "/hints",
                with: .ok("styled").header("Cache-Control", "max-age=600")
                    .interim(103, [("Link", "</a.css>; rel=preload"), ("Link", "</b.js>; rel=preload")])
                    .interim(102).held { gate.pass() })
            let starter = try harness.open("GET", harness.fetchPath("/hints"))
            defer { starter.close() }
            #expect(await harness.origin.waitForRequests(1, timeout: .seconds(20)))
            #expect(
                await waitUntil(timeout: .seconds(10)) { starter.hasBytesWaiting }, "no interim before the final head")
            let joiner = try harness.open("GET", harness.fetchPath("/hints"))
            defer { joiner.close() }
            #expect(await harness.waitForWaiters(2))
            gate.open()
            let first = try starter.readFinalResponse()
            let second = try joiner.readFinalResponse()
            #expect(first.status == 200 && second.status == 200)
            #expect(first.text == "styled" && second.text == "styled")
            #expect(first.interim.map(\.status) == [103, 102])
            #expect(
                first.interim.first?.headers.filter { $0.name == "Link" }.map(\.value)
                    == ["</a.css>; rel=preload", "</b.js>; rel=preload"])
            #expect(second.interim.isEmpty, "a collapsed caller got another request's interim responses")
            #expect(second.header("Cache-Status")?.contains("collapsed") == true)
            #expect(harness.origin.requestCount(for: "/hints") == 1)
        }
    }

    /// RFC 9110 §15.2: a server must not send a 1xx response to an HTTP/1.0 client.
    @Test func anHTTP10CallerGetsNoInterimResponse() async throws {
        try await withFetchHarness { harness in
            harness.origin.respond(
                to: "/old", with: .ok("plain").header("Cache-Control", "max-age=600").interim(103, [("Link", "</a>")]))
            let client = try RawSocketClient(port: harness.http.port, timeout: 30)
            defer { client.close() }
            try client.send("GET \(harness.fetchPath("/old")) HTTP/1.0\r\nHost: test\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "plain")
            #expect(harness.origin.requestCount(for: "/old") == 1)
        }
    }

    /// A forwarded unsafe method relays its interim responses as a miss does.
    @Test func aForwardedPostRelaysInterimResponses() async throws {
        try await withFetchHarness { harness in
            harness.origin.respond(to: "/form", with: .ok("done").interim(103, [("Link", "</next>")]))
            let response = try harness.fetch("/form", method: "POST")
            #expect(response.status == 200)
            #expect(response.header("X-Cache") == "BYPASS")
            #expect(response.interim.map(\.status) == [103])
            #expect(response.interim.first?.header("Link") == "</next>")
        }
    }

    @Test func anOnlyInterimAnswerIsAnOriginFailureAndNothingIsStored() async throws {
        try await withFetchHarness { harness in
            harness.origin.respond(to: "/only", with: .raw("HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"))
            let response = try harness.fetch("/only")
            #expect(response.status == 502)
            #expect(response.header("Content-Type") == "application/problem+json")
            #expect(await harness.settle())
            #expect(try harness.store.stats().entryCount == 0)
        }
    }

    @Test func contentRangeOnA200IsStoredAndReplayedButNotOnLarderOwnRangeAnswers() async throws {
        try await withFetchHarness { harness in
            harness.origin.respond(
                to: "/cr",
                with: .ok("0123456789").header("Content-Range", "bytes 0-9/100").header("Cache-Control", "max-age=600"))
            let miss = try harness.fetch("/cr")
            #expect(miss.status == 200)
            #expect(miss.header("Content-Range") == "bytes 0-9/100")
            #expect(await harness.settle())
            let hit = try harness.fetch("/cr")
            #expect(hit.header("X-Cache") == "HIT")
            #expect(hit.header("Content-Range") == "bytes 0-9/100")
            #expect(hit.text == "0123456789")
            let ranged = try harness.fetch("/cr", headers: [("Range", "bytes=2-3")])
            #expect(ranged.status == 206)
            #expect(ranged.headers.filter { $0.name.lowercased() == "content-range" }.map(\.value) == ["bytes 2-3/10"])
            #expect(harness.origin.requestCount(for: "/cr") == 1)
        }
    }
}
