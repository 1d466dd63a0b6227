import HTTPServer
import Synchronization

/// The server whose connections `HTTPMetrics` reports, set once it exists: the metrics are created
/// before the server, because the server takes their access-record callback. Held weakly, since the
/// server holds the metrics through that callback.
final class ServerLink: Sendable {
    private let read = Mutex<(@Sendable () -> (open: Int, accepted: Int)?)?>(nil)

    /// Remembers the server.
    func attach(_ server: HTTPServer) {
        read.withLock {
            $0 = { [weak server] in server.map { ($0.connectionCount, $0.acceptedConnectionCount) } }
        }
    }

    /// Open and accepted connections, `nil` before a server is attached (or after it is gone).
    var counts: (open: Int, accepted: Int)? {
        read.withLock { $0 }?()
    }
}
