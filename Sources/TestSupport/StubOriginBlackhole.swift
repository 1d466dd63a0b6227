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
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw StubOriginError(operation: "socket", errno: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 0) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard ok else {
            let error = StubOriginError(operation: "bind/listen", errno: errno)
            close(fd)
            throw error
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
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
