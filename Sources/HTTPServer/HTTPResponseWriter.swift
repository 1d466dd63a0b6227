public import HTTPCore
import Synchronization

/// Where a handler sends its answer to one request.
///
/// `send(_:)` may be called exactly once, from any thread; a later call is ignored. The server adds
/// `Date`, the framing (`Content-Length`, chunked, or close-delimited for HTTP/1.0 streams) and
/// `Connection: close` when it will close; it answers HEAD with the headers a GET would have and
/// no content.
public final class HTTPResponseWriter: Sendable {
    private let connection: HTTPConnection
    private let requestNumber: Int
    private let sent = Atomic<Bool>(false)

    init(connection: HTTPConnection, requestNumber: Int) {
        self.connection = connection
        self.requestNumber = requestNumber
    }

    /// Sends the response. Hops to the connection's queue unless already on it.
    /// - Parameter response: the status, headers and body to send.
    public func send(_ response: HTTPResponse) {
        guard sent.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            assertionFailure("HTTPResponseWriter.send called twice")
            return
        }
        connection.deliver(response, requestNumber: requestNumber)
    }
}
