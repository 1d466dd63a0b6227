/// Limits the request parser enforces; each breach has the status RFC 9112 prescribes.
public struct HTTPParserLimits: Sendable, Equatable {
    /// Longest request line in bytes, without its CRLF (414 beyond it).
    public var maxRequestLineBytes: Int
    /// Largest header section in bytes, field lines and their CRLFs (431 beyond it).
    public var maxHeaderBytes: Int
    /// Most field lines in one header section (431 beyond it).
    public var maxHeaderCount: Int
    /// Largest request content in bytes (413 beyond it).
    public var maxBodyBytes: Int
    /// Most empty lines (CRLF) skipped before a request line (RFC 9112 §2.2); one more is 400.
    public var maxEmptyLinesBeforeRequest: Int
    /// Largest total of chunk extension bytes in one chunked body (413 beyond it, RFC 9112 §7.1.1).
    public var maxChunkExtensionBytes: Int
    /// Largest trailer section in bytes, field lines and their CRLFs (431 beyond it, RFC 9112 §7.1.2).
    public var maxTrailerBytes: Int

    /// Creates limits; the defaults suit an API that takes small JSON bodies.
    public init(
        maxRequestLineBytes: Int = 8 * 1024,
        maxHeaderBytes: Int = 32 * 1024,
        maxHeaderCount: Int = 100,
        maxBodyBytes: Int = 1024 * 1024,
        maxEmptyLinesBeforeRequest: Int = 4,
        maxChunkExtensionBytes: Int = 4 * 1024,
        maxTrailerBytes: Int = 8 * 1024
    ) {
        self.maxRequestLineBytes = maxRequestLineBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxBodyBytes = maxBodyBytes
        self.maxEmptyLinesBeforeRequest = maxEmptyLinesBeforeRequest
        self.maxChunkExtensionBytes = maxChunkExtensionBytes
        self.maxTrailerBytes = maxTrailerBytes
    }
}

/// Why a request could not be parsed, and the status to answer before closing the connection.
public struct HTTPParseError: Error, Sendable, Equatable {
    /// The status to send (400, 413, 414, 417, 431, 501, 505).
    public var status: HTTPStatus
    /// What was wrong, for logs and the problem detail. Never echoes request bytes.
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
/// Bytes are kept in one buffer with a read index (the start of what is not yet consumed) and a scan
/// index (how far the current line has been searched for its LF), so bytes fed one at a time are
/// looked at once, not once per feed. Every check runs at a fixed byte position of the stream, which
/// is why splitting the input differently cannot change the outcome. Consumed bytes are dropped from
/// the front of the buffer only when that costs no more than the bytes already consumed.
///
/// Choices RFC 9112 leaves open, made here: `CONNECT` is answered 501 (Larder is no tunnel); a
/// Transfer-Encoding without `chunked` last is 400 (§6.3) and one that adds other codings before
/// `chunked` is 501 (§6.1); an empty `Host` is 400; trailer fields are checked and then dropped
/// (§7.1.2); the request target must be made of RFC 3986 characters with well-formed `%XX` escapes;
/// field values keep obs-text bytes, decoded as UTF-8 with replacement characters where invalid.
///
/// A connection uses it like this: append what `read` returned, then call `next()` until it answers
/// `.needMoreData` (answer each `.request` in order, send `100 Continue` on `.expectsContinue`), and on
/// `.failure` send the error's status and close.
public struct HTTPRequestParser: Sendable {
    /// Where in a message the parser is.
    enum State: Sendable, Equatable {
        /// Skipping empty lines or reading the request line.
        case requestLine
        /// Reading field lines of the header section.
        case fieldLines
        /// Waiting for a body of this many bytes (Content-Length).
        case fixedBody(Int)
        /// Reading a chunk-size line.
        case chunkSizeLine
        /// Copying this many more bytes of chunk data.
        case chunkData(Int)
        /// Expecting the CRLF after chunk data.
        case chunkDataEnd
        /// Reading trailer field lines.
        case trailerLines
    }

    /// What one step of parsing produced: `nil` to go on with the next state, or the answer for
    /// `next()`. Being the public result type already, a finished request is returned without a copy.
    typealias Step = HTTPParserResult?

    let limits: HTTPParserLimits
    var buffer: [UInt8] = []
    /// The first byte not yet consumed.
    var readIndex = 0
    /// Where the search for the end of the current line resumes.
    var scanIndex = 0
    /// How far the method of the current request line has been checked; `.max` once it has been.
    var methodScanIndex = 0
    var state = State.requestLine
    var message = MessageInProgress()
    /// The field lines of the request being read; kept between requests for its capacity, so that the
    /// headers of a request cost one array allocation (the next request's, once `HTTPHeaders` holds this
    /// one's), not a growth series.
    var fields: [HTTPHeaders.Field] = []
    var failed: HTTPParseError?

    /// Creates a parser with the given limits.
    public init(limits: HTTPParserLimits = HTTPParserLimits()) {
        self.limits = limits
    }

    /// Appends bytes received from the connection. Bytes after a failure are dropped.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard failed == nil, !bytes.isEmpty else { return }
        compact()
        buffer.append(contentsOf: bytes.assumingMemoryBound(to: UInt8.self))
    }

    /// Appends bytes received from the connection. Bytes after a failure are dropped.
    public mutating func append(contentsOf bytes: some Sequence<UInt8>) {
        guard failed == nil else { return }
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// Whether no byte of an unfinished request is buffered: the connection is between requests, so an
    /// idle keep-alive timeout applies rather than a header-read timeout. Drain `next()` first; complete
    /// requests still buffered count as bytes. Skipped empty lines (RFC 9112 §2.2) do not begin a request:
    /// a client's stray CRLF after a body must not turn its idle connection into a 408 (their number is
    /// still bounded by the request-line rules).
    public var isIdle: Bool {
        failed == nil && state == .requestLine && readIndex == buffer.count
    }

    /// Whether the head of the current request is complete and its body is being read.
    public var isReadingBody: Bool {
        switch state {
        case .requestLine, .fieldLines: false
        case .fixedBody, .chunkSizeLine, .chunkData, .chunkDataEnd, .trailerLines: failed == nil
        }
    }

    /// Returns the next complete request, or what is missing, or the failure.
    public mutating func next() -> HTTPParserResult {
        if let failed { return .failure(failed) }
        // A second reference keeps the storage alive while self is mutated; nothing below writes to
        // `buffer`, so no copy is made.
        let bytes = buffer
        return bytes.withUnsafeBufferPointer { buffer in
            while true {
                let step: Step
                switch state {
                case .requestLine: step = readRequestLine(buffer)
                case .fieldLines: step = readFieldLine(buffer)
                case .fixedBody(let length): step = readFixedBody(buffer, length: length)
                case .chunkSizeLine: step = readChunkSizeLine(buffer)
                case .chunkData(let remaining): step = readChunkData(buffer, remaining: remaining)
                case .chunkDataEnd: step = readChunkDataEnd(buffer)
                case .trailerLines: step = readTrailerLine(buffer)
                }
                guard let result = step else { continue }
                switch result {
                case .needMoreData:
                    if message.continuePending {
                        message.continuePending = false
                        return .expectsContinue
                    }
                    return .needMoreData
                case .failure(let error):
                    failed = error
                    return result
                case .request, .expectsContinue:
                    return result
                }
            }
        }
    }

    /// Drops consumed bytes from the front of the buffer when that is cheap: always when all are
    /// consumed, otherwise only once the consumed part is large and at least half of the buffer, so the
    /// bytes moved never exceed the bytes consumed (amortized linear).
    private mutating func compact() {
        guard readIndex > 0 else { return }
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 64 * 1024)
        } else if readIndex >= 4096 && readIndex * 2 >= buffer.count {
            buffer.removeSubrange(0..<readIndex)
        } else {
            return
        }
        scanIndex -= readIndex
        if methodScanIndex != .max { methodScanIndex -= readIndex }
        readIndex = 0
    }

    /// Records the end of the current line and moves past it.
    @inline(__always)
    mutating func consume(through index: Int) {
        readIndex = index
        scanIndex = index
        methodScanIndex = index
    }

    /// What scanning for the end of a line found.
    enum LineScan {
        /// The LF ending the line is at this index.
        case found(Int)
        /// No LF yet within the window; more bytes may complete the line.
        case incomplete
        /// A byte that is not LF sits at or past the window: the line is too long.
        case tooLong
    }

    /// Searches for the LF ending the line that starts at `readIndex`, resuming where the last search
    /// stopped. The LF must be at most `window - 1` bytes after the line start.
    @inline(__always)
    mutating func scanLine(_ buffer: UnsafeBufferPointer<UInt8>, window: Int) -> LineScan {
        let windowEnd = readIndex.saturatingAdd(window)
        let end = Swift.min(buffer.count, windowEnd)
        var index = scanIndex
        if let lineFeed = SWAR.firstIndex(of: ASCII.lf, in: buffer, from: &index, to: end) {
            return .found(lineFeed)
        }
        scanIndex = index
        return index >= windowEnd ? .tooLong : .incomplete
    }

    /// Builds the failure step.
    @inline(__always)
    func fail(_ status: HTTPStatus, _ reason: String) -> Step {
        .failure(HTTPParseError(status: status, reason: reason))
    }

    /// Builds a parse error, for helpers that report only failures.
    @inline(__always)
    func parseError(_ status: HTTPStatus, _ reason: String) -> HTTPParseError {
        HTTPParseError(status: status, reason: reason)
    }
}

extension Int {
    /// The sum, or `Int.max` when it would overflow: limits may be set to `Int.max` to mean "none".
    @inline(__always)
    func saturatingAdd(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? .max : sum
    }
}
