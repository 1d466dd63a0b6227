import HTTPCore
import HTTPServer
import LarderTesting
import Synchronization
import TestSupport
import Testing

/// The in-process client of `LarderTesting` releases a body it does not read, as the server does.
struct LarderTestClientTests {
    /// A stream that records whether it was read or cancelled.
    final class RecordingSource: HTTPBodySource {
        let events = Mutex<[String]>([])

        func next(maxBytes: Int, deliver: @escaping @Sendable (HTTPBodyChunk) -> Void) {
            events.withLock { $0.append("read") }
            deliver(.end)
        }

        func cancel() { events.withLock { $0.append("cancelled") } }
    }

    @Test(arguments: [("HEAD", 200), ("GET", 204), ("GET", 304)])
    func aStreamWithNoContentToSendIsCancelledNotRead(method: String, status: Int) async throws {
        let source = RecordingSource()
        let app = LarderTestApp(
            responder: HTTPClosureResponder { _, _, writer in
                writer.send(HTTPResponse(status: HTTPStatus(code: status), body: .stream(source, length: nil)))
            })
        try await app.test(.router) { client in
            let response = try client.request(method, "/")
            #expect(response.status == status)
            #expect(response.body.isEmpty)
        }
        #expect(source.events.withLock { $0 } == ["cancelled"])
    }

    @Test func aStreamWithContentIsReadToItsEnd() async throws {
        let source = RecordingSource()
        let app = LarderTestApp(
            responder: HTTPClosureResponder { _, _, writer in
                writer.send(HTTPResponse(status: .ok, body: .stream(source, length: nil)))
            })
        try await app.test(.router) { client in
            let response = try client.request("GET", "/")
            #expect(response.status == 200)
        }
        #expect(source.events.withLock { $0 } == ["read"])
    }
}
