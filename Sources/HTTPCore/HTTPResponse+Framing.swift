extension HTTPResponse {
    /// How a response goes on the wire for one request: the framing of its head, whether its content
    /// follows the head, and whether the connection must close after it.
    public struct WireFraming: Sendable, Equatable {
        /// How the content is delimited (the head's `Content-Length` or `Transfer-Encoding`).
        public var framing: Framing
        /// Whether the content is sent after the head (never for HEAD, 1xx, 204 and 304).
        public var sendsContent: Bool
        /// Whether only the connection's close can end the content (an HTTP/1.0 stream of unknown length).
        public var closesConnection: Bool

        /// Creates a framing decision.
        public init(framing: Framing, sendsContent: Bool, closesConnection: Bool = false) {
            self.framing = framing
            self.sendsContent = sendsContent
            self.closesConnection = closesConnection
        }
    }

    /// Chooses how this response is delimited when it answers a request (RFC 9112 §6.3).
    ///
    /// - 1xx, 204 and 304 have neither content nor `Content-Length` (RFC 9110 §8.6).
    /// - Content in memory or in a file is sent with its `Content-Length`.
    /// - A stream of announced length is sent with that `Content-Length`; one of unknown length is chunked
    ///   for HTTP/1.1 and delimited by the close for HTTP/1.0, which has no chunked coding.
    /// - HEAD gets the framing a GET would have and no content (RFC 9110 §9.3.2): the length of the content
    ///   it would have, else the handler's own `Content-Length`; an empty body without one announces 0.
    ///   A HEAD answer never closes the connection for its framing.
    /// - Parameters:
    ///   - isHEAD: whether the request's method is HEAD.
    ///   - version: the request's HTTP version.
    /// - Returns: the framing, whether content follows, and whether the connection must close after it.
    public func wireFraming(respondingToHEAD isHEAD: Bool, version: HTTPVersion) -> WireFraming {
        if status.forbidsContent { return WireFraming(framing: .none, sendsContent: false) }
        let length: Int?
        switch body {
        case .empty:
            length = isHEAD ? declaredContentLength ?? 0 : 0
        case .bytes(let bytes):
            length = bytes.count
        case .file(let region):
            length = region.count
        case .stream(_, let announced):
            length = announced ?? (isHEAD ? declaredContentLength : nil)
        }
        if let length { return WireFraming(framing: .contentLength(length), sendsContent: !isHEAD) }
        if version == .http1_1 { return WireFraming(framing: .chunked, sendsContent: !isHEAD) }
        // HTTP/1.0 has no chunked coding. A HEAD answer has no content to delimit, so the connection may stay.
        if isHEAD { return WireFraming(framing: .none, sendsContent: false) }
        return WireFraming(framing: .closeDelimited, sendsContent: true, closesConnection: true)
    }

    /// Whether the handler asked for the connection to close after this response (`Connection: close`).
    public var asksToCloseConnection: Bool {
        headers.connectionOptions.contains { $0.equalsIgnoringASCIICase("close") }
    }

    /// The handler's own `Content-Length`, which a HEAD answer with no content announces.
    private var declaredContentLength: Int? {
        headers["Content-Length"].flatMap { Int($0) }.flatMap { $0 >= 0 ? $0 : nil }
    }
}
