import CacheCore
import Foundation
import HTTPCore
import Storage
import TestSupport
import Testing

/// Which parts of an origin's answer reach the store and callers: interim 1xx heads never (RFC 9110 §15.2,
/// RFC 9111 §3 stores final responses only), every field of the final head, `Content-Range` on a 200
/// included (RFC 9111 §3.1).
@Suite struct FetchOriginHeadTests {
    static let interimThenFinal =
        "HTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload; as=style\r\nX-Interim: test\r\n\r\n"
        + "HTTP/1.1 100 Continue\r\nX-Continue: yes\r\n\r\n"
        + "HTTP/1.1 200 OK\r\nCache-Control: max-age=600\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n"
        + "Connection: close\r\n\r\nfinal"

    @Test func interimResponsesAreNeitherStoredNorMergedIntoTheFinalAnswer() async throws {
        try await withFetchHarness { harness in
            harness.origin.respond(to: "/i", with: .raw(Self.interimThenFinal))
            let miss = try harness.fetch("/i")
            #expect(miss.status == 200)
            #expect(miss.text == "final")
            #expect(miss.header("X-Cache") == "MISS")
            for name in ["X-Interim", "Link", "X-Continue"] { #expect(miss.header(name) == nil, "\(name) on the miss") }
            #expect(await harness.settle())
            let hit = try harness.fetch("/i")
            #expect(hit.status == 200)
            #expect(hit.text == "final")
            #expect(hit.header("X-Cache") == "HIT")
            for name in ["X-Interim", "Link", "X-Continue"] { #expect(hit.header(name) == nil, "\(name) on the hit") }
            let key = try #require(hit.header("X-Cache-Key").flatMap(CacheKey.init(hex:)))
            let entry = try #require(try harness.store.entry(for: key))
            #expect(entry.status.code == 200)
            #expect(!entry.headers.contains("X-Interim"))
            #expect(harness.origin.requestCount(for: "/i") == 1)
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
