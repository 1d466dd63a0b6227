import Glibc

/// The outcome of a non-blocking socket call that may have to wait: "would block" is a result, not an error.
enum IOResult: Equatable {
    /// The call moved this many bytes (0 from `read` is end of stream).
    case processed(Int)
    /// The socket is not ready; wait for the dispatch source to fire.
    case wouldBlock
}

/// Thin wrappers over the socket system calls: each retries `EINTR`, reports `EAGAIN` as
/// `.wouldBlock` and throws `SocketError` for everything else.
enum Socket {
    /// Creates a non-blocking TCP socket listening on `host:port`.
    /// - Returns: the descriptor and the port actually bound (useful when `port` is 0).
    static func makeListener(host: String, port: Int, backlog: Int32) throws(SocketError) -> (fd: Int32, port: Int) {
        var storage = try SocketAddress.parse(host: host, port: port)
        let family = Int32(storage.family)
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError(operation: "socket", errno: errno) }
        do throws(SocketError) {
            try setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1, "setsockopt(SO_REUSEADDR)")
            try storage.withSockaddr { address, length throws(SocketError) in
                if bind(fd, address, length) != 0 { throw SocketError(operation: "bind \(host):\(port)", errno: errno) }
            }
            if listen(fd, backlog) != 0 { throw SocketError(operation: "listen", errno: errno) }
            try setNonBlocking(fd)
            let bound = try localAddress(of: fd)
            storage = bound
            return (fd, bound.port)
        } catch {
            close(fd)
            throw error
        }
    }

    /// Accepts one pending connection as a non-blocking socket.
    /// - Returns: the new descriptor, or `nil` when none is pending.
    static func accept(_ listener: Int32) throws(SocketError) -> Int32? {
        while true {
            // accept4 is a GNU extension Swift does not see; two fcntl calls per connection are cheap.
            let fd = Glibc.accept(listener, nil, nil)
            if fd >= 0 {
                do throws(SocketError) {
                    try setNonBlocking(fd)
                } catch {
                    close(fd)
                    throw error
                }
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                return fd
            }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return nil
            // The peer gave up between SYN and accept: not the listener's problem.
            case ECONNABORTED, EPROTO: continue
            default: throw SocketError(operation: "accept", errno: errno)
            }
        }
    }

    /// Reads into `buffer`.
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SocketError) -> IOResult {
        while true {
            let count = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if count >= 0 { return .processed(count) }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: throw SocketError(operation: "read", errno: errno)
            }
        }
    }

    /// Writes two buffers in one call (`sendmsg`, so a vanished peer is an error, not a SIGPIPE).
    /// - Parameter more: more content follows at once (a file): `MSG_MORE` lets the kernel put the head
    ///   in the same segment as the first bytes of the file instead of sending it alone.
    static func write(
        _ fd: Int32, _ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer, more: Bool = false
    ) throws(SocketError) -> IOResult {
        let flags = Int32(MSG_NOSIGNAL) | (more ? Int32(MSG_MORE) : 0)
        var vectors = (
            iovec(iov_base: UnsafeMutableRawPointer(mutating: first.baseAddress), iov_len: first.count),
            iovec(iov_base: UnsafeMutableRawPointer(mutating: second.baseAddress), iov_len: second.count)
        )
        return try withUnsafeMutableBytes(of: &vectors) { raw throws(SocketError) -> IOResult in
            var message = msghdr()
            message.msg_iov = raw.baseAddress!.assumingMemoryBound(to: iovec.self)
            message.msg_iovlen = second.isEmpty ? 1 : 2
            if first.isEmpty {
                message.msg_iov = message.msg_iov.advanced(by: 1)
                message.msg_iovlen = 1
            }
            while true {
                let count = sendmsg(fd, &message, flags)
                if count >= 0 { return .processed(count) }
                switch errno {
                case EINTR: continue
                case EAGAIN, EWOULDBLOCK: return .wouldBlock
                default: throw SocketError(operation: "write", errno: errno)
                }
            }
        }
    }

    /// Sends up to `count` bytes of `file` from `offset` (`sendfile`: no copy through user memory).
    /// - Returns: the bytes sent; `.processed(0)` when the file ended before `offset` (it shrank).
    static func sendFile(_ fd: Int32, from file: Int32, offset: Int, count: Int) throws(SocketError) -> IOResult {
        var position = off_t(offset)
        while true {
            let sent = Glibc.sendfile(fd, file, &position, count)
            if sent >= 0 { return .processed(sent) }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: throw SocketError(operation: "sendfile", errno: errno)
            }
        }
    }

    /// Turns off Nagle's algorithm: a head and a small body must not wait for a delayed ACK.
    static func setNoDelay(_ fd: Int32) throws(SocketError) {
        try setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1, "setsockopt(TCP_NODELAY)")
    }

    static func setNonBlocking(_ fd: Int32) throws(SocketError) {
        let flags = fcntl(fd, F_GETFL)
        if flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0 {
            throw SocketError(operation: "fcntl(O_NONBLOCK)", errno: errno)
        }
    }

    static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32, _ operation: String)
        throws(SocketError)
    {
        var value = value
        if setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size)) != 0 {
            throw SocketError(operation: operation, errno: errno)
        }
    }

    /// Stops sending (a FIN goes out once queued bytes are sent) but keeps reading.
    static func shutdownWrite(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    static func localAddress(of fd: Int32) throws(SocketError) -> SocketAddress {
        var address = SocketAddress()
        let result = address.withMutableSockaddr { pointer, length in getsockname(fd, pointer, length) }
        if result != 0 { throw SocketError(operation: "getsockname", errno: errno) }
        return address
    }

    static func remoteAddress(of fd: Int32) throws(SocketError) -> SocketAddress {
        var address = SocketAddress()
        let result = address.withMutableSockaddr { pointer, length in getpeername(fd, pointer, length) }
        if result != 0 { throw SocketError(operation: "getpeername", errno: errno) }
        return address
    }
}
