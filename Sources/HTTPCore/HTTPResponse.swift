/// A response to be written to a client.
public struct HTTPResponse: Sendable {
    /// The status line's code and phrase.
    public var status: HTTPStatus
    /// Header fields. The server adds `Content-Length` or `Transfer-Encoding`, `Date` and
    /// `Connection` itself; a handler sets `Content-Length` only for HEAD answers and streamed bodies
    /// of known size.
    public var headers: HTTPHeaders
    /// The content.
    public var body: HTTPResponseBody
    /// The status line and header fields already serialized, when a handler keeps them ready (a cache
    /// hit answered from memory). The server then writes these bytes instead of serializing `headers`,
    /// adding only `Connection` and the empty line; see ``init(preparedHead:status:body:headers:)``.
    public private(set) var preparedHead: [UInt8]?
    /// Whether the body is an RFC 9457 problem made by ``ProblemDetails/makeResponse(headers:)``: the
    /// server adds the request's identifier to it as `instance`.
    public internal(set) var isProblem = false

    /// Creates a response.
    public init(status: HTTPStatus, headers: HTTPHeaders = HTTPHeaders(), body: HTTPResponseBody = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
        self.preparedHead = nil
    }

    /// Creates a response whose head is already serialized, as ``serializeFields(into:framing:)`` wrote
    /// it: status line, fields, `Date` and `Content-Length` matching `body`, without `Connection`
    /// and without the closing empty line.
    /// - Parameters:
    ///   - preparedHead: the serialized head.
    ///   - status: the status the head's status line carries (for logs).
    ///   - body: the content; its length must be the one the head's `Content-Length` announces.
    ///   - headers: fields the server may look at (`X-Cache` for the access log, `Connection`); not written.
    public init(
        preparedHead: [UInt8], status: HTTPStatus, body: HTTPResponseBody, headers: HTTPHeaders = HTTPHeaders()
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.preparedHead = preparedHead
    }
}

/// The content of a response: nothing, bytes in memory, a stream pulled with backpressure, or a file region.
public enum HTTPResponseBody: Sendable {
    /// No content.
    case empty
    /// Content held in memory.
    case bytes([UInt8])
    /// Content produced on demand; `length` is the total when known (sent as `Content-Length`),
    /// otherwise the server uses chunked coding (HTTP/1.1) or close-delimiting (HTTP/1.0).
    case stream(any HTTPBodySource, length: Int?)
    /// Content in a file the server sends from with `sendfile`, without copying it through user memory
    /// (large hot bodies; see `HTTPServer.MemoryFile`).
    case file(any HTTPFileRegion)
}

/// Bytes of an open file: `count` bytes from `offset` of `descriptor`. The object keeps the descriptor
/// open for as long as it lives, so a response being sent keeps its file even if its owner drops it.
public protocol HTTPFileRegion: AnyObject, Sendable {
    /// The open file.
    var descriptor: Int32 { get }
    /// Where the content starts in the file.
    var offset: Int { get }
    /// How many bytes the content has.
    var count: Int { get }
}

/// A producer of response bytes that the server pulls from, one piece at a time, only when the
/// previous piece has been written: a slow reader never makes the server buffer without bound.
public protocol HTTPBodySource: AnyObject, Sendable {
    /// Asks for the next piece of at most `maxBytes` bytes. The source calls `deliver` exactly once,
    /// on any thread, with the next bytes, the end, or a failure.
    func next(maxBytes: Int, deliver: @escaping @Sendable (HTTPBodyChunk) -> Void)

    /// Tells the source that no more pieces will be pulled (the client went away or the response
    /// ended); it releases what it holds. Called at most once, possibly while a `next` is pending.
    func cancel()
}

/// One answer of an `HTTPBodySource`.
public enum HTTPBodyChunk: Sendable {
    /// More bytes; never empty.
    case bytes([UInt8])
    /// No more bytes; the body is complete.
    case end
    /// The body cannot be completed; the server aborts the connection (the client must not take a
    /// truncated body for a whole one).
    case failure(any Error)
}
