import Glibc

/// Why the raw test client stopped.
public struct RawSocketError: Error, CustomStringConvertible {
    /// What the client was doing.
    public var operation: String
    /// The `errno` left by the failing call, 0 when the failure is not a system call's.
    public var errno: Int32

    /// What failed and the errno.
    public var description: String { "\(operation) (errno \(errno))" }
}

/// A response as read by `RawSocketClient`, framing undone.
public struct RawHTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The header fields in order.
    public var headers: [(name: String, value: String)]
    /// The content, de-chunked.
    public var body: [UInt8]
    /// The interim (1xx) responses that came before this one, in order (`readFinalResponse`).
    public var interim: [RawHTTPResponse] = []

    /// The first value of the named field (case-insensitive), or `nil`.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The content as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// Creates a response (as an in-process client reads one off a responder).
    /// - Parameters:
    ///   - status: the status code.
    ///   - headers: the header fields in order.
    ///   - body: the content.
    public init(status: Int, headers: [(name: String, value: String)], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// A blocking TCP client for tests that need to control the exact bytes sent to a server on
/// 127.0.0.1 (pipelining, partial requests, slow reading). Every read waits at most `timeout` seconds.
public final class RawSocketClient {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var sawEnd = false

    /// Connects to `127.0.0.1:port`.
    /// - Parameters:
    ///   - port: the server's port.
    ///   - timeout: the longest any single read waits.
    ///   - receiveBufferSize: a small `SO_RCVBUF` makes a slow reader slow sooner.
    /// - Throws: `RawSocketError` when the connection cannot be made.
    public init(port: Int, timeout: Double = 5, receiveBufferSize: Int32? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawSocketError(operation: "socket", errno: errno) }
        if var size = receiveBufferSize {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var interval = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let error = RawSocketError(operation: "connect 127.0.0.1:\(port)", errno: errno)
            Glibc.close(fd)
            throw error
        }
    }

    deinit { Glibc.close(fd) }

    /// Sends text as is (write `\r\n` yourself).
    public func send(_ text: String) throws { try send(bytes: Array(text.utf8)) }

    /// Sends bytes as is.
    public func send(bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw RawSocketError(operation: "send", errno: errno)
            }
            offset += count
        }
    }

    /// Reads the interim (1xx) responses and the final one after them.
    /// - Parameter isHeadResponse: the response answers HEAD, so no content follows its head.
    /// - Returns: the final response, with the interim ones in `interim`.
    public func readFinalResponse(isHeadResponse: Bool = false) throws -> RawHTTPResponse {
        var interim: [RawHTTPResponse] = []
        while true {
            var response = try readResponse(isHeadResponse: isHeadResponse)
            guard (100..<200).contains(response.status) else {
                response.interim = interim
                return response
            }
            interim.append(response)
        }
    }

    /// Reads one response (an interim 1xx response counts as one).
    /// - Parameter isHeadResponse: the response answers HEAD, so no content follows its head.
    /// - Returns: the status, headers and de-chunked content.
    public func readResponse(isHeadResponse: Bool = false) throws -> RawHTTPResponse {
        let headEnd = try readUntil([13, 10, 13, 10])
        let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
        buffer.removeFirst(headEnd + 4)
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw RawSocketError(operation: "parse status line \(head)", errno: 0)
        }
        let headers = lines.map { line -> (name: String, value: String) in
            let parts = line.split(separator: ":", maxSplits: 1)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]).trimmingCharacters(in: " ") : "")
        }
        var response = RawHTTPResponse(status: status, headers: headers, body: [])
        if isHeadResponse || status < 200 || status == 204 || status == 304 { return response }
        if let length = response.header("Content-Length").flatMap({ Int($0) }) {
            response.body = try readExactly(length)
        } else if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            while true {
                let lineEnd = try readUntil([13, 10])
                let sizeText = String(decoding: buffer[..<lineEnd], as: UTF8.self)
                buffer.removeFirst(lineEnd + 2)
                guard let size = Int(sizeText, radix: 16) else {
                    throw RawSocketError(operation: "parse chunk size \(sizeText)", errno: 0)
                }
                if size == 0 {
                    _ = try readExactly(2)
                    break
                }
                response.body += try readExactly(size)
                _ = try readExactly(2)
            }
        } else {
            response.body = try readToEnd()
        }
        return response
    }

    /// Reads until the server closes the connection.
    /// - Returns: every byte not yet consumed.
    public func readToEnd() throws -> [UInt8] {
        while !sawEnd { try fill() }
        defer { buffer.removeAll() }
        return buffer
    }

    /// Whether the server closed (or reset) the connection within the read timeout, with nothing more
    /// to read before the end.
    public func isClosedByServer() -> Bool {
        do {
            let rest = try readToEnd()
            return rest.isEmpty
        } catch let error as RawSocketError {
            return error.errno == ECONNRESET
        } catch {
            return false
        }
    }

    /// Whether a byte from the server waits to be read, looked at without reading or waiting (safe from
    /// another thread while this one does not read).
    public var hasBytesWaiting: Bool {
        if !buffer.isEmpty { return true }
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) > 0
    }

    /// Reads at most `count` bytes, waiting for at least one.
    public func readSome(upTo count: Int) throws -> [UInt8] {
        if buffer.isEmpty { try fill(max: count) }
        let taken = Array(buffer.prefix(count))
        buffer.removeFirst(taken.count)
        return taken
    }

    /// Stops sending (the server reads end of stream) but keeps reading its answers.
    public func shutdownWrite() {
        shutdown(fd, Int32(SHUT_WR))
    }

    /// Closes the socket now; with `reset`, unread data or `SO_LINGER 0` makes it a RST.
    public func close(reset: Bool = false) {
        if reset {
            var option = linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        }
        shutdown(fd, Int32(SHUT_RDWR))
    }

    private func readExactly(_ count: Int) throws -> [UInt8] {
        while buffer.count < count {
            if sawEnd {
                throw RawSocketError(operation: "connection closed after \(buffer.count) of \(count) bytes", errno: 0)
            }
            try fill()
        }
        let taken = Array(buffer[..<count])
        buffer.removeFirst(count)
        return taken
    }

    private func readUntil(_ marker: [UInt8]) throws -> Int {
        var searchFrom = 0
        while true {
            if buffer.count >= marker.count {
                for start in searchFrom...(buffer.count - marker.count)
                where buffer[start..<(start + marker.count)].elementsEqual(marker) {
                    return start
                }
                searchFrom = buffer.count - marker.count + 1
            }
            if sawEnd { throw RawSocketError(operation: "connection closed before a complete head", errno: 0) }
            try fill()
        }
    }

    private func fill(max: Int = 65_536) throws {
        var chunk = [UInt8](repeating: 0, count: max)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer += chunk[..<count]
                return
            }
            if count == 0 {
                sawEnd = true
                return
            }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK {
                throw RawSocketError(operation: "read timed out", errno: errno)
            }
            throw RawSocketError(operation: "recv", errno: errno)
        }
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var view = Substring(self)
        while let first = view.first, set.contains(first) { view = view.dropFirst() }
        while let last = view.last, set.contains(last) { view = view.dropLast() }
        return String(view)
    }
}
