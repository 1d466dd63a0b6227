import Foundation

/// A listening socket on `127.0.0.1` whose accept queue is full and never drained, so a new
/// connection attempt hangs in SYN-SENT: the loopback way to exercise a connect timeout.
public final class StubOriginBlackhole: Sendable {
    /// The port that never completes a handshake.
    public let port: UInt16
    private let listener: Int32
    private let fillers: [Int32]

    /// Listens with a backlog of 0 and fills the queue with its own connections.
    /// - Throws: `StubOriginError` when a socket call fails.
    public init() throws {
        (listener, port) = try loopbackListener(backlog: 0)
        var address = loopbackAddress(port: port)
        var fillers: [Int32] = []
        // Linux queues backlog + 1 connections; a few more attempts make sure the queue is full.
        for _ in 0..<3 {
            let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            fillers.append(filler)
        }
        self.fillers = fillers
        usleep(50_000)
    }

    deinit {
        for fd in fillers { close(fd) }
        close(listener)
    }

    /// `http://127.0.0.1:<port><path>`.
    public func url(_ path: String = "/") -> String { "http://127.0.0.1:\(port)\(path)" }
}
