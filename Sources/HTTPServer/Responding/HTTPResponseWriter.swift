public import HTTPCore
import Synchronization

/// Where a handler sends its answer to one request.
///
/// `send(_:)` may be called exactly once, from any thread; a later call is ignored. `sendInterim(_:)`
/// may come before it, any number of times. The server adds
/// `Date`, the framing (`Content-Length`, chunked, or close-delimited for HTTP/1.0 streams) and
/// `Connection: close` when it will close; it answers HEAD with the headers a GET would have and
/// no content.
public final class HTTPResponseWriter: Sendable {
    private enum Destination {
        /// The connection the request came on, and the request's number on it.
        case connection(HTTPConnection, Int)
        /// A closure, with no connection behind it.
        case detached(@Sendable (HTTPResponse) -> Void)
    }

    private let destination: Destination
    private let sent = Atomic<Bool>(false)

    init(connection: HTTPConnection, requestNumber: Int) {
        destination = .connection(connection, requestNumber)
    }

    /// A writer that shows the response to `observer` and then sends it through `writer`: for a responder
    /// that wraps another and must know how it answered (an audit line with the outcome).
    /// - Parameters:
    ///   - writer: where the response goes.
    ///   - observer: called once with the response, on the sending thread, before it is sent.
    public convenience init(
        forwardingTo writer: HTTPResponseWriter, observer: @escaping @Sendable (HTTPResponse) -> Void
    ) {
        self.init(delivering: { response in
            observer(response)
            writer.send(response)
        })
    }

    /// A writer with no connection: the response goes to `deliver` as the handler sent it, without the
    /// server's framing, `Date` or problem `instance`. For answering a request in process (the router
    /// tests of `LarderTesting`).
    /// - Parameter deliver: called once with the response, on the sending thread.
    public init(delivering deliver: @escaping @Sendable (HTTPResponse) -> Void) {
        destination = .detached(deliver)
    }

    /// Sends an interim (1xx) response ahead of the final one, such as `103 Early Hints` (RFC 8297). It is
    /// written only while the final response is still awaited, and never to an HTTP/1.0 client (RFC 9110
    /// §15.2); otherwise, and on a writer without a connection, it is dropped. Any number may be sent, from
    /// any thread, before `send(_:)`; none after.
    /// - Parameter response: a response with a 1xx status other than 101; its body is ignored.
    public func sendInterim(_ response: HTTPResponse) {
        precondition(
            (100..<200).contains(response.status.code) && response.status.code != 101, "not an interim status")
        guard !sent.load(ordering: .acquiring), case .connection(let connection, let requestNumber) = destination
        else { return }
        connection.deliverInterim(response, requestNumber: requestNumber)
    }

    /// Sends the response. Hops to the connection's queue unless already on it.
    /// - Parameter response: the status, headers and body to send.
    public func send(_ response: HTTPResponse) {
        guard sent.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            assertionFailure("HTTPResponseWriter.send called twice")
            return
        }
        switch destination {
        case .connection(let connection, let requestNumber):
            connection.deliver(response, requestNumber: requestNumber)
        case .detached(let deliver):
            deliver(response)
        }
    }
}
