public import HTTPCore

/// The status line and fields of a response head (the final one, or an interim 1xx), as the origin sent them
/// less the fields of the connection.
public struct OriginResponseHead: Sendable, Equatable {
    /// The status code.
    public var status: Int
    /// The reason phrase, possibly empty (HTTP/2 has none).
    public var reasonPhrase: String
    /// The end-to-end fields in order: the hop-by-hop ones and those `Connection` names belong to the
    /// connection with the origin and are left out (RFC 9110 §7.6.1; `ResponseHeadParser`).
    public var headers: HTTPHeaders
    /// The protocol version of the response.
    public var version: HTTPVersion

    /// Creates a head.
    public init(status: Int, reasonPhrase: String = "", headers: HTTPHeaders, version: HTTPVersion) {
        self.status = status
        self.reasonPhrase = reasonPhrase
        self.headers = headers
        self.version = version
    }
}
