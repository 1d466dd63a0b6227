import HTTPCore
import TestSupport
import Testing

@testable import Upstream

/// The driver sets each transfer up on the easy handle of a finished one, reset: nothing of a fetch's
/// options (its method, content, header lines, address check) reaches the next fetch on that handle.
struct OriginClientHandleReuseTests {
    @Test func aFetchOnAReusedHandleSendsOnlyItsOwnMethodContentAndFields() async throws {
        let origin = try StubOrigin()
        origin.respond(to: "/post", with: .ok("posted"))
        origin.respond(to: "/head", with: .ok("not sent for a HEAD"))
        origin.respond(to: "/get", with: .ok("the body"))
        let client = makeLoopbackClient()
        let requests = [
            OriginRequest(
                method: .post, url: origin.url("/post"), headers: HTTPHeaders([("X-First-Only", "1")]),
                body: Array("abc".utf8)),
            OriginRequest(method: .head, url: origin.url("/head")),
            OriginRequest(url: origin.url("/get")),
        ]
        var bodies: [String] = []
        // One after the other: each fetch starts once the one before finished and gave its handle back.
        for request in requests {
            let delegate = RecordingFetchDelegate()
            client.fetch(request, delegate: delegate)
            #expect(try #require(await delegate.finished()).get().status == 200)
            bodies.append(String(decoding: delegate.body, as: UTF8.self))
        }
        #expect(bodies == ["posted", "", "the body"])
        // All three on one handle, set up three times.
        #expect(client.handlesMade == 1)
        let seen = origin.requests
        #expect(seen.map(\.method) == ["POST", "HEAD", "GET"])
        #expect(seen.map(\.body) == [Array("abc".utf8), [], []])
        #expect(seen.map { $0.headers.contains("X-First-Only") } == [true, false, false])
        #expect(seen.map { $0.headers.contains("Content-Length") } == [true, false, false])
    }

    @Test func theAddressCheckRunsOnAReusedHandle() async throws {
        let origin = try StubOrigin()
        origin.respond(to: "/", with: .ok("allowed"))
        let client = makeLoopbackClient(allowNetworks: ["127.0.0.1/32"])
        for url in [origin.url("/"), "http://127.0.0.2:\(origin.port)/", origin.url("/")] {
            let delegate = RecordingFetchDelegate()
            client.fetch(OriginRequest(url: url), delegate: delegate)
            let result = try #require(await delegate.finished())
            if url.contains("127.0.0.2") {
                guard case .failure(.addressRefused) = result else {
                    Issue.record("a fetch to 127.0.0.2 on a reused handle was not refused: \(result)")
                    continue
                }
            } else {
                #expect(try result.get().status == 200)
            }
        }
        #expect(origin.requestCount == 2)
        #expect(client.handlesMade == 1, "the refused fetch was not on the first fetch's handle")
    }
}
