import Glibc

/// A connected, non-blocking TCP socket for `CommandHTTPClient`; every wait is a `poll` bounded by
/// the exchange's deadline. Owns the descriptor and closes it in `deinit`.
final class CommandSocket {
    private let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }

    /// Resolves `host` and connects to the first address that answers.
    /// - Parameters:
    ///   - host: a name or a numeric address.
    ///   - port: the TCP port.
    ///   - deadline: monotonic seconds (`CommandHTTPClient.now()`) by which it must be connected.
    /// - Returns: the connected socket.
    /// - Throws: `CommandHTTPError.resolve`, `.connect` or `.timedOut`.
    static func connect(host: String, port: Int, deadline: Double) throws -> CommandSocket {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &list)
        guard resolved == 0, let list else {
            throw CommandHTTPError.resolve(host: host, reason: String(cString: gai_strerror(resolved)))
        }
        defer { freeaddrinfo(list) }
        var lastError = CommandHTTPError.connect(host: host, port: port, errno: EHOSTUNREACH)
        var next: UnsafeMutablePointer<addrinfo>? = list
        while let info = next {
            next = info.pointee.ai_next
            let descriptor = socket(info.pointee.ai_family, info.pointee.ai_socktype | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard descriptor >= 0 else { continue }
            let socket = CommandSocket(descriptor: descriptor)
            if Glibc.connect(descriptor, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return socket }
            guard errno == EINPROGRESS else {
                lastError = .connect(host: host, port: port, errno: errno)
                continue
            }
            try socket.wait(for: Int16(POLLOUT), deadline: deadline, phase: "connecting to \(host):\(port)")
            var failure: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &failure, &length)
            if failure == 0 { return socket }
            lastError = .connect(host: host, port: port, errno: failure)
        }
        throw lastError
    }

    /// Writes every byte.
    func writeAll(_ bytes: [UInt8], deadline: Double) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if written > 0 {
                offset += written
            } else if written < 0, errno == EAGAIN || errno == EINTR {
                try wait(for: Int16(POLLOUT), deadline: deadline, phase: "sending the request")
            } else {
                throw CommandHTTPError.io(operation: "send", errno: errno)
            }
        }
    }

    /// Reads until the peer closes, at most `limit` bytes.
    func readToEnd(limit: Int, deadline: Double) throws -> [UInt8] {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while received.count < limit {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received += buffer[..<count]
            } else if count == 0 {
                return received
            } else if errno == EAGAIN || errno == EINTR {
                try wait(for: Int16(POLLIN), deadline: deadline, phase: "waiting for the response")
            } else {
                throw CommandHTTPError.io(operation: "recv", errno: errno)
            }
        }
        return received
    }

    /// Waits until the socket is ready for `events` or the deadline passes.
    private func wait(for events: Int16, deadline: Double, phase: String) throws {
        while true {
            let left = deadline - CommandHTTPClient.now()
            guard left > 0 else { throw CommandHTTPError.timedOut(phase) }
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&entry, 1, Int32(min(left * 1000, 60_000).rounded(.up)))
            if ready > 0 { return }
            if ready < 0, errno != EINTR { throw CommandHTTPError.io(operation: "poll", errno: errno) }
        }
    }
}
