import Glibc

/// A small blocking HTTP/1.1 client for the operator commands (`health`, `fanout`): one request per
/// connection (`Connection: close`), plain http, a deadline on the whole exchange.
///
/// The origin client (`Upstream`) refuses loopback and private addresses by design, and must keep
/// doing so; these commands talk to Larder's own replicas, which live on exactly such addresses.
struct CommandHTTPClient: Sendable {
    /// Where a request goes, split from an `http://host:port/path` URL.
    struct Target: Sendable, Equatable {
        let host: String
        let port: Int
        let path: String

        /// Splits an http URL; `path` replaces the URL's own path when given.
        /// - Parameters:
        ///   - url: `http://host[:port][/path]`; IPv6 hosts in brackets.
        ///   - path: a path to use instead of the URL's.
        /// - Throws: `CommandHTTPError.badURL` for anything else (https included: replicas are reached
        ///   on their internal network).
        init(url: String, path: String? = nil) throws {
            guard url.hasPrefix("http://") else {
                throw CommandHTTPError.badURL(url, "only http:// URLs are supported")
            }
            let rest = url.dropFirst("http://".count)
            let authority = rest.prefix { $0 != "/" && $0 != "?" }
            let ownPath = String(rest.dropFirst(authority.count))
            var host = Substring(authority)
            var port = 80
            if authority.hasPrefix("[") {
                guard let close = authority.firstIndex(of: "]") else {
                    throw CommandHTTPError.badURL(url, "unclosed IPv6 bracket")
                }
                host = authority[authority.index(after: authority.startIndex)..<close]
                let after = authority[authority.index(after: close)...]
                if after.hasPrefix(":") {
                    guard let value = Int(after.dropFirst()) else { throw CommandHTTPError.badURL(url, "bad port") }
                    port = value
                } else if !after.isEmpty {
                    throw CommandHTTPError.badURL(url, "unexpected text after the IPv6 address")
                }
            } else if let colon = authority.lastIndex(of: ":") {
                host = authority[..<colon]
                guard let value = Int(authority[authority.index(after: colon)...]) else {
                    throw CommandHTTPError.badURL(url, "bad port")
                }
                port = value
            }
            guard !host.isEmpty, (1...65_535).contains(port) else {
                throw CommandHTTPError.badURL(url, "no host or port out of range")
            }
            self.host = String(host)
            self.port = port
            self.path = path ?? (ownPath.isEmpty ? "/" : ownPath)
        }

        /// The value of the `Host` header.
        var authority: String { (host.contains(":") ? "[\(host)]" : host) + ":\(port)" }
    }

    /// A response: status, header fields and body (de-chunked).
    struct Response: Sendable {
        let status: Int
        let headers: [(name: String, value: String)]
        let body: [UInt8]

        /// The first value of a header, case-insensitively.
        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    /// Seconds the whole exchange (connect, send, receive) may take.
    var timeout: Double = 3
    /// The most response bytes read; an operator tool has no use for more.
    var maxResponseBytes = 1 << 20

    /// Sends one request and reads the whole response.
    /// - Parameters:
    ///   - method: the method (`GET`, `DELETE`, …).
    ///   - target: where to.
    ///   - headers: extra header fields.
    ///   - body: the request body, sent with `Content-Length`.
    /// - Returns: the response.
    /// - Throws: `CommandHTTPError` naming what failed.
    func send(
        _ method: String, to target: Target, headers: [(String, String)] = [], body: [UInt8] = []
    ) throws -> Response {
        let deadline = Self.now() + timeout
        let socket = try CommandSocket.connect(host: target.host, port: target.port, deadline: deadline)
        var head = "\(method) \(target.path) HTTP/1.1\r\nHost: \(target.authority)\r\nConnection: close\r\n"
        head += "User-Agent: larder-cli\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || ["POST", "PUT", "PATCH"].contains(method) { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        try socket.writeAll(Array(head.utf8) + body, deadline: deadline)
        let raw = try socket.readToEnd(limit: maxResponseBytes, deadline: deadline)
        return try Self.parse(raw, headOnly: method == "HEAD")
    }

    /// Parses a complete response as read up to the close.
    static func parse(_ raw: [UInt8], headOnly: Bool = false) throws -> Response {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let end = raw.firstRange(of: separator) else {
            throw CommandHTTPError.malformed(raw.isEmpty ? "connection closed without a response" : "no end of head")
        }
        let lines = String(decoding: raw[..<end.lowerBound], as: UTF8.self).split(separator: "\r\n")
        let statusParts = lines.first?.split(separator: " ", maxSplits: 2) ?? []
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else {
            throw CommandHTTPError.malformed("bad status line '\(lines.first ?? "")'")
        }
        let headers = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingSpaces)
        }
        var body = Array(raw[end.upperBound...])
        let response = Response(status: status, headers: headers, body: [])
        if headOnly { return response }
        if response.header("Transfer-Encoding")?.lowercased().contains("chunked") == true {
            body = try dechunk(body)
        } else if let length = response.header("Content-Length").flatMap(Int.init), length < body.count {
            body = Array(body.prefix(length))
        }
        return Response(status: status, headers: headers, body: body)
    }

    /// Joins the chunks of a chunked body (RFC 9112 §7.1); trailers are ignored.
    static func dechunk(_ bytes: [UInt8]) throws -> [UInt8] {
        var output: [UInt8] = []
        var index = 0
        while true {
            guard let lineEnd = bytes[index...].firstRange(of: Array("\r\n".utf8)) else {
                throw CommandHTTPError.malformed("truncated chunked body")
            }
            let sizeText = String(decoding: bytes[index..<lineEnd.lowerBound], as: UTF8.self)
            guard let size = Int(sizeText.prefix { $0 != ";" }.trimmingSpaces, radix: 16), size >= 0 else {
                throw CommandHTTPError.malformed("bad chunk size '\(sizeText)'")
            }
            if size == 0 { return output }
            let start = lineEnd.upperBound
            guard start + size <= bytes.count else { throw CommandHTTPError.malformed("truncated chunk") }
            output += bytes[start..<start + size]
            index = start + size + 2
            guard index <= bytes.count else { throw CommandHTTPError.malformed("truncated chunk") }
        }
    }

    /// Seconds on the monotonic clock.
    static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}

/// Why a command's HTTP exchange failed.
enum CommandHTTPError: Error, CustomStringConvertible {
    case badURL(String, String)
    case resolve(host: String, reason: String)
    case connect(host: String, port: Int, errno: Int32)
    case timedOut(String)
    case io(operation: String, errno: Int32)
    case malformed(String)

    var description: String {
        switch self {
        case .badURL(let url, let reason): "bad URL '\(url)': \(reason)"
        case .resolve(let host, let reason): "cannot resolve \(host): \(reason)"
        case .connect(let host, let port, let code):
            "cannot connect to \(host):\(port): \(String(cString: strerror(code)))"
        case .timedOut(let phase): "timed out \(phase)"
        case .io(let operation, let code): "\(operation) failed: \(String(cString: strerror(code)))"
        case .malformed(let reason): "malformed response: \(reason)"
        }
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
