/// What a `StubOrigin` answers to one request, including the ways a real origin misbehaves.
///
/// Build one with a factory and adjust it with the chaining modifiers:
/// `StubOriginResponse.ok("hello").trickled(chunkSize: 2, every: .milliseconds(5))`.
public struct StubOriginResponse: Sendable {
    /// How the body is framed on the wire (RFC 9112 §6).
    public enum Framing: Sendable, Equatable {
        /// A `Content-Length` field (the real length unless `declaredContentLength` lies).
        case contentLength
        /// `Transfer-Encoding: chunked`, one chunk per piece written.
        case chunked
        /// No length: the body ends when the connection closes.
        case closeDelimited
    }

    /// What happens after the head.
    public enum Ending: Sendable, Equatable {
        /// Send the whole body.
        case complete
        /// Send this many body bytes, then reset the connection (RST).
        case resetAfter(bytes: Int)
        /// Send this many body bytes, then close the connection cleanly (FIN).
        case closeAfter(bytes: Int)
        /// Repeat the body forever (until the client goes away or the stub stops).
        case endless
    }

    /// The status code.
    public var status: Int
    /// The reason phrase; a generic one when `nil`.
    public var reasonPhrase: String?
    /// Header fields in order; `Content-Length` / `Transfer-Encoding` are added per `framing`.
    public var headers: [(String, String)]
    /// The body bytes (for `.endless`, the piece that repeats).
    public var body: [UInt8]
    /// The body framing.
    public var framing: Framing = .contentLength
    /// A `Content-Length` to announce instead of the real one (to send fewer or more bytes than announced).
    public var declaredContentLength: Int?
    /// Interim (1xx) heads written as given as soon as the request is read, before `delayBeforeHead`.
    public var interimBytes: [UInt8] = []
    /// Wait this long after reading the request (and writing `interimBytes`) before the response.
    public var delayBeforeHead: Duration = .zero
    /// Called on the origin's thread once the interim heads are written, before the delay and the
    /// response: a test holds the response here until it is ready for it.
    public var afterInterim: (@Sendable () -> Void)?
    /// Write the body in pieces of this size (0: in one write).
    public var chunkSize: Int = 0
    /// Wait this long between body pieces.
    public var delayBetweenChunks: Duration = .zero
    /// How the body ends.
    public var ending: Ending = .complete
    /// Never answer: hold the connection open and silent until the client leaves or the stub stops.
    public var neverAnswers = false
    /// Close the connection after this response (adds `Connection: close`).
    public var closesConnection = false
    /// Bytes written verbatim instead of a response (then the connection closes): for malformed origins.
    public var rawBytes: [UInt8]?

    /// Creates a response.
    public init(status: Int = 200, reasonPhrase: String? = nil, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.reasonPhrase = reasonPhrase
        self.headers = headers
        self.body = body
    }

    /// A 200 with a text body.
    public static func ok(_ text: String, contentType: String = "text/plain; charset=utf-8") -> StubOriginResponse {
        StubOriginResponse(status: 200, headers: [("Content-Type", contentType)], body: Array(text.utf8))
    }

    /// A 200 with a binary body.
    public static func ok(bytes: [UInt8], contentType: String = "application/octet-stream") -> StubOriginResponse {
        StubOriginResponse(status: 200, headers: [("Content-Type", contentType)], body: bytes)
    }

    /// A bodiless status (e.g. 204, 304) with headers.
    public static func status(_ code: Int, headers: [(String, String)] = []) -> StubOriginResponse {
        StubOriginResponse(status: code, headers: headers)
    }

    /// A redirect to `location`.
    public static func redirect(to location: String, status: Int = 302) -> StubOriginResponse {
        StubOriginResponse(status: status, headers: [("Location", location)])
    }

    /// A request that is read and never answered.
    public static var silent: StubOriginResponse {
        var response = StubOriginResponse()
        response.neverAnswers = true
        return response
    }

    /// Exactly these bytes on the wire, then close (status line, framing and all are up to you).
    public static func raw(_ text: String) -> StubOriginResponse {
        var response = StubOriginResponse()
        response.rawBytes = Array(text.utf8)
        return response
    }

    /// `body` repeated forever with chunked framing.
    public static func endless(piece: [UInt8] = Array(repeating: 0x61, count: 4096)) -> StubOriginResponse {
        var response = StubOriginResponse(
            status: 200, headers: [("Content-Type", "application/octet-stream")], body: piece)
        response.framing = .chunked
        response.ending = .endless
        return response
    }

    /// The same response with `change` made: what each of the builders below returns.
    private func with(_ change: (inout StubOriginResponse) -> Void) -> StubOriginResponse {
        var copy = self
        change(&copy)
        return copy
    }

    /// The same response with one more header field.
    public func header(_ name: String, _ value: String) -> StubOriginResponse {
        with { $0.headers.append((name, value)) }
    }

    /// The same response sent after waiting `delay`.
    public func delayed(_ delay: Duration) -> StubOriginResponse {
        with { $0.delayBeforeHead = delay }
    }

    /// The same response preceded by an interim head (RFC 9110 §15.2), written as soon as the request is
    /// read: `interim(103, [("Link", "</a.css>; rel=preload")])`. Several calls send several, in order.
    public func interim(_ status: Int, _ fields: [(String, String)] = []) -> StubOriginResponse {
        with { copy in
            var text = "HTTP/1.1 \(status) Interim\r\n"
            for (name, value) in fields { text += "\(name): \(value)\r\n" }
            copy.interimBytes += Array((text + "\r\n").utf8)
        }
    }

    /// The same response, sent only once `hold` returns (called after the interim heads are written).
    public func held(by hold: @escaping @Sendable () -> Void) -> StubOriginResponse {
        with { $0.afterInterim = hold }
    }

    /// The same response with its body written in pieces, waiting between them.
    public func trickled(chunkSize: Int, every delay: Duration = .zero) -> StubOriginResponse {
        with { copy in
            copy.chunkSize = max(1, chunkSize)
            copy.delayBetweenChunks = delay
        }
    }

    /// The same response with another framing.
    public func framed(_ framing: Framing) -> StubOriginResponse {
        with { $0.framing = framing }
    }

    /// The same response announcing `length` bytes whatever the body holds.
    public func declaring(contentLength length: Int) -> StubOriginResponse {
        with { $0.declaredContentLength = length }
    }

    /// The same response ending another way.
    public func ending(_ ending: Ending) -> StubOriginResponse {
        with { $0.ending = ending }
    }

    /// The same response closing the connection afterwards.
    public func closingConnection() -> StubOriginResponse {
        with { $0.closesConnection = true }
    }

    /// The same response with its body gzip-encoded and `Content-Encoding: gzip` (and `Vary`) added.
    public func gzipped() -> StubOriginResponse {
        with { copy in
            copy.body = StubOriginGzip.encode(body)
            copy.headers.append(("Content-Encoding", "gzip"))
            copy.headers.append(("Vary", "Accept-Encoding"))
        }
    }
}
