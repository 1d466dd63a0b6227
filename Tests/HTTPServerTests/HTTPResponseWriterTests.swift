import HTTPCore
import HTTPServer
import Synchronization
import Testing

/// The writers with no connection behind them: one delivering to a closure, one showing the response to an
/// observer before forwarding it (what `AdminGuard` audits with).
struct HTTPResponseWriterTests {
    @Test func forwardingWriterShowsTheResponseToItsObserverThenSendsIt() {
        let events = Mutex<[String]>([])
        let inner = HTTPResponseWriter(delivering: { response in
            events.withLock { $0.append("sent \(response.status.code)") }
        })
        let outer = HTTPResponseWriter(forwardingTo: inner) { response in
            events.withLock { $0.append("observed \(response.status.code)") }
        }
        outer.send(HTTPResponse(status: HTTPStatus(code: 204)))
        #expect(events.withLock { $0 } == ["observed 204", "sent 204"])
    }
}
