public import HTTPCore

/// One request to an origin.
public struct OriginRequest: Sendable {
    /// The method sent: GET and HEAD for the cache's own fetches, any other token for a request `/fetch`
    /// forwards without caching (RFC 9111 §4.4); the origin client refuses one that is not a token.
    public var method: HTTPMethod
    /// The absolute http(s) URL; validated by `OriginURL` before anything is sent.
    public var url: String
    /// The caller's request fields; hop-by-hop ones are dropped and `Via` is added on the way.
    public var headers: HTTPHeaders
    /// The content sent with the request, `nil` for none. GET and HEAD never send one; another method
    /// sends it with its `Content-Length` (an empty one too: a POST without content says `Content-Length: 0`).
    public var body: [UInt8]?
    /// Limits for this request instead of the client's, if set.
    public var limits: OriginLimits?

    /// Creates a request.
    /// - Parameters:
    ///   - method: the method, GET by default.
    ///   - url: the absolute URL.
    ///   - headers: the caller's fields.
    ///   - body: the content, for methods other than GET and HEAD.
    ///   - limits: limits instead of the client's.
    public init(
        method: HTTPMethod = .get, url: String, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8]? = nil,
        limits: OriginLimits? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.limits = limits
    }
}
