import Dispatch
import HTTPCore
import HTTPServer
import TestSupport
import Testing

/// The event loops watch sockets edge-triggered: a readiness edge that arrives while reading is paused
/// must not be lost, or the bytes behind it are never read.
@Suite(.serialized) struct HTTPConnectionReadinessTests {
    /// More pipelined bytes than one read takes (the loop's buffer is 64 KiB) behind a pipeline limit, with
    /// answers that come later from another thread: reading pauses with bytes still in the socket, and
    /// must resume when the pipeline frees up. Not a strict test of the remembered edge (that is
    /// `HTTPConnectionStateMachineTests.anEdgeSeenWhilePausedIsReadWhenReadingResumes`): on loopback the rest
    /// of the bytes usually arrive after the pause, bringing an edge of their own, so this test passed with
    /// the resumed read disabled. It guards the pipeline as a whole.
    @Test(arguments: [2, 16])
    func pipelineLargerThanOneReadIsAnsweredWhole(maxPipelined: Int) async throws {
        let served = Counter()
        let echo = HTTPClosureResponder { request, _, writer in
            served.increment()
            DispatchQueue.global().async {
                writer.send(HTTPResponse(status: .ok, body: .bytes(Array(request.path.utf8))))
            }
        }
        try await withServer({ $0.maxPipelinedRequests = maxPipelined }, responder: echo) { server in
            let client = try RawSocketClient(port: server.port)
            let padding = "X-Padding: " + String(repeating: "p", count: 900) + "\r\n"
            let count = 120
            let requests = (0..<count).map { get("/r\($0)", extra: padding) }.joined()
            #expect(requests.utf8.count > 100 * 1024)
            try client.send(requests)
            let bodies = try (0..<count).map { _ in try client.readResponse().text }
            #expect(bodies == (0..<count).map { "/r\($0)" })
            #expect(served.count == count)
        }
    }

    /// The peer closes while the pipeline is full: the close is noticed once reading resumes, after every
    /// request already sent has been answered. The end of stream arrives with the requests, so no edge
    /// follows it; the idle timeout is far beyond the client's 5 s read timeout, so only noticing the
    /// close itself ends the connection in time.
    @Test func halfCloseBehindAFullPipelineIsNoticedAfterTheAnswers() async throws {
        let adjust: (inout HTTPServerConfiguration) -> Void = {
            $0.maxPipelinedRequests = 1
            $0.idleTimeout = 60
        }
        try await withServer(adjust, responder: EchoResponder()) { server in
            let client = try RawSocketClient(port: server.port)
            try client.send((0..<5).map { get("/h\($0)") }.joined())
            client.shutdownWrite()
            let bodies = try (0..<5).map { _ in try client.readResponse().text }
            #expect(bodies == ["/h0", "/h1", "/h2", "/h3", "/h4"])
            #expect(client.isClosedByServer())
        }
    }
}
