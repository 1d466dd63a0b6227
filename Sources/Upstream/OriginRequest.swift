public import HTTPCore

/// One request to an origin.
public struct OriginRequest: Sendable {
    /// The methods Larder sends to origins.
    public enum Method: String, Sendable {
        /// GET.
        case get = "GET"
        /// HEAD: the head only (RFC 9110 §9.3.2).
        case head = "HEAD"
    }

    /// GET or HEAD.
    public var method: Method
    /// The absolute http(s) URL; validated by `OriginURL` before anything is sent.
    public var url: String
    /// The caller's request fields; hop-by-hop ones are dropped and `Via` is added on the way.
    public var headers: HTTPHeaders
    /// Limits for this request instead of the client's, if set.
    public var limits: OriginLimits?

    /// Creates a request.
    public init(method: Method = .get, url: String, headers: HTTPHeaders = HTTPHeaders(), limits: OriginLimits? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.limits = limits
    }
}
