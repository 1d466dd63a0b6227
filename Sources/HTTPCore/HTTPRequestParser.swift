/// Limits the request parser enforces; each breach has the status RFC 9112 prescribes.
public struct HTTPParserLimits: Sendable, Equatable {
    /// Longest request line in bytes (414 beyond it).
    public var maxRequestLineBytes: Int
    /// Largest header section in bytes, field lines and their CRLFs (431 beyond it).
    public var maxHeaderBytes: Int
    /// Most field lines in one header section (431 beyond it).
    public var maxHeaderCount: Int
    /// Largest request content in bytes (413 beyond it).
    public var maxBodyBytes: Int

    /// Creates limits; the defaults suit an API that takes small JSON bodies.
    public init(
        maxRequestLineBytes: Int = 8 * 1024,
        maxHeaderBytes: Int = 32 * 1024,
        maxHeaderCount: Int = 100,
        maxBodyBytes: Int = 1024 * 1024
    ) {
        self.maxRequestLineBytes = maxRequestLineBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxBodyBytes = maxBodyBytes
    }
}

/// Why a request could not be parsed, and the status to answer before closing the connection.
public struct HTTPParseError: Error, Sendable, Equatable {
    /// The status to send (400, 413, 414, 431, 501, 505).
    public var status: HTTPStatus
    /// What was wrong, for logs and the problem detail.
    public var reason: String

    /// Creates a parse error.
    public init(status: HTTPStatus, reason: String) {
        self.status = status
        self.reason = reason
    }
}

/// What the parser has to say after bytes were appended.
public enum HTTPParserResult: Sendable, Equatable {
    /// A complete request, content included. Call `next()` again: more may be buffered (pipelining).
    case request(HTTPRequest)
    /// Nothing complete yet; append more bytes.
    case needMoreData
    /// The head of a request with `Expect: 100-continue` is complete and its content has not arrived:
    /// the server may send `100 Continue` now. Reported once per request.
    case expectsContinue
    /// The bytes are not a valid request. The server answers `error.status` and closes the connection;
    /// the parser returns this same failure from now on and executes nothing after it.
    case failure(HTTPParseError)
}

/// An incremental HTTP/1.1 request parser (RFC 9112) that gives the same result whether the bytes
/// arrive at once or one at a time.
///
/// PLACEHOLDER: a minimal Content-Length-only implementation so the transport can be built against this
/// API; the strict parser replaces the internals without changing the API.
public struct HTTPRequestParser: Sendable {
    private let limits: HTTPParserLimits
    private var buffer: [UInt8] = []
    private var failed: HTTPParseError?

    /// Creates a parser with the given limits.
    public init(limits: HTTPParserLimits = HTTPParserLimits()) {
        self.limits = limits
    }

    /// Appends bytes received from the connection.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        buffer.append(contentsOf: bytes)
    }

    /// Appends bytes received from the connection.
    public mutating func append(contentsOf bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// Returns the next complete request, or what is missing, or the failure.
    public mutating func next() -> HTTPParserResult {
        if let failed { return .failure(failed) }
        let crlfcrlf: [UInt8] = [13, 10, 13, 10]
        guard buffer.count >= 4, let end = (0...(buffer.count - 4)).first(where: { buffer[$0..<$0 + 4].elementsEqual(crlfcrlf) })
        else { return .needMoreData }
        let headText = String(decoding: buffer[..<end], as: UTF8.self)
        var lines = headText.split(separator: "\r\n", omittingEmptySubsequences: false)
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count == 3 else { return fail(.badRequest, "malformed request line") }
        var headers = HTTPHeaders()
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { return fail(.badRequest, "malformed field line") }
            headers.add(name: String(line[..<colon]), value: line[line.index(after: colon)...].trimmingHTTPWhitespace())
        }
        let length = headers["Content-Length"].flatMap { Int($0) } ?? 0
        guard buffer.count >= end + 4 + length else { return .needMoreData }
        let body = Array(buffer[(end + 4)..<(end + 4 + length)])
        buffer.removeFirst(end + 4 + length)
        let version: HTTPVersion = requestLine[2] == "HTTP/1.0" ? .http1_0 : .http1_1
        return .request(
            HTTPRequest(
                method: HTTPMethod(rawValue: String(requestLine[0])), target: String(requestLine[1]), version: version,
                headers: headers, body: body))
    }

    private mutating func fail(_ status: HTTPStatus, _ reason: String) -> HTTPParserResult {
        let error = HTTPParseError(status: status, reason: reason)
        failed = error
        return .failure(error)
    }
}
