/// A complete request as parsed from the wire (RFC 9112 §3), body included.
public struct HTTPRequest: Sendable, Equatable {
    /// The method token.
    public var method: HTTPMethod
    /// The request target exactly as it appeared on the request line.
    public var target: String
    /// The path of the target, still percent-encoded (`*` for asterisk-form).
    public var path: String
    /// The query of the target without the `?`, still percent-encoded; `nil` when absent.
    public var query: String?
    /// The protocol version of the request line.
    public var version: HTTPVersion
    /// The header fields in order. For absolute-form targets `Host` holds the target's authority
    /// (RFC 9112 §3.2.2).
    public var headers: HTTPHeaders
    /// The request content, de-chunked.
    public var body: [UInt8]

    /// Creates a request; the path and query are split from the target.
    public init(
        method: HTTPMethod,
        target: String,
        version: HTTPVersion = .http1_1,
        headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = []
    ) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.body = body
        var pathPart = Substring(target)
        if target.hasPrefix("http://") || target.hasPrefix("https://") {
            // absolute-form: drop scheme and authority.
            let afterScheme = pathPart.dropFirst(target.hasPrefix("https://") ? 8 : 7)
            pathPart = afterScheme.firstIndex(where: { $0 == "/" || $0 == "?" }).map { afterScheme[$0...] } ?? "/"
            if pathPart.first == "?" { pathPart = "/" + pathPart }
        }
        if let mark = pathPart.firstIndex(of: "?") {
            self.path = String(pathPart[..<mark])
            self.query = String(pathPart[pathPart.index(after: mark)...])
        } else {
            self.path = String(pathPart)
            self.query = nil
        }
    }

    /// Creates a request whose target was already split, as the parser does on bytes.
    /// - Parameters:
    ///   - method: The method token.
    ///   - target: The request target as it appeared on the request line.
    ///   - path: The target's path, still percent-encoded.
    ///   - query: The target's query without the `?`, or `nil`.
    ///   - version: The protocol version.
    ///   - headers: The header fields in order.
    ///   - body: The content, de-chunked.
    public init(
        method: HTTPMethod, target: String, path: String, query: String?, version: HTTPVersion,
        headers: HTTPHeaders, body: [UInt8]
    ) {
        self.method = method
        self.target = target
        self.path = path
        self.query = query
        self.version = version
        self.headers = headers
        self.body = body
    }

    /// Whether the connection stays open after this request unless the response says otherwise
    /// (RFC 9112 §9.3: HTTP/1.1 by default, HTTP/1.0 only with `Connection: keep-alive`).
    public var wantsKeepAlive: Bool {
        let options = headers.connectionOptions
        if options.contains(where: { $0.equalsIgnoringASCIICase("close") }) { return false }
        if version == .http1_1 { return true }
        return options.contains { $0.equalsIgnoringASCIICase("keep-alive") }
    }

    /// The first value of the named query parameter, percent-decoded (`+` is a space), or `nil`.
    public func queryParameter(_ name: String) -> String? {
        queryParameters.first { $0.name == name }?.value
    }

    /// Every query parameter in order, percent-decoded (`+` as space). Undecodable ones keep their raw text.
    public var queryParameters: [(name: String, value: String)] {
        guard let query, !query.isEmpty else { return [] }
        return query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]).formDecoded()
            let value = parts.count > 1 ? String(parts[1]).formDecoded() : ""
            return (name, value)
        }
    }
}

extension String {
    /// Decodes `application/x-www-form-urlencoded` text: `+` is a space, `%XX` a byte.
    /// Returns the text unchanged when the escapes do not form valid UTF-8.
    public func formDecoded() -> String {
        percentDecoded(plusIsSpace: true) ?? self
    }

    /// Decodes `%XX` escapes; `nil` when an escape is malformed or the bytes are not UTF-8.
    ///
    /// One pass over the UTF-8 bytes into a buffer on the stack (for all but very long texts), and one
    /// string made from it: every `/fetch` whose `url` parameter is encoded, as a client's URL library
    /// encodes it, decodes it on every request, hits from memory included.
    public func percentDecoded(plusIsSpace: Bool = false) -> String? {
        var text = self
        return text.withUTF8 { source -> String? in
            let changes = source.contains { $0 == UInt8(ascii: "%") || (plusIsSpace && $0 == UInt8(ascii: "+")) }
            guard changes else { return self }
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: source.count) { out -> String? in
                var written = 0
                var index = 0
                while index < source.count {
                    let byte = source[index]
                    if byte == UInt8(ascii: "%") {
                        guard index + 2 < source.count, let high = hexValue(source[index + 1]),
                            let low = hexValue(source[index + 2])
                        else { return nil }
                        out[written] = high << 4 | low
                        index += 3
                    } else {
                        out[written] = plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte
                        index += 1
                    }
                    written += 1
                }
                return String(validating: UnsafeBufferPointer(rebasing: out[..<written]), as: UTF8.self)
            }
        }
    }

    /// The text with every byte outside RFC 3986's unreserved set (`A-Z a-z 0-9 - . _ ~`) and `keeping`
    /// written as `%XX`.
    /// - Parameter keeping: further ASCII characters left as they are (`":/@"` for a URL in a query).
    public func percentEncoded(keeping: String = "") -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count)
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.append(byte)
            case _ where keeping.utf8.contains(byte):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

private func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}
