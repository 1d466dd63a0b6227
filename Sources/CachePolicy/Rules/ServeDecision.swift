public import HTTPCore

/// What to do with a stored response for a request ([RFC 9111 §4](https://www.rfc-editor.org/rfc/rfc9111#section-4)).
public enum ServeDecision: Sendable, Equatable {
    /// Serve it: it is fresh. `age` goes into `Age`; `ttl` is the freshness left (Cache-Status `ttl`).
    case fresh(age: Int64, ttl: Int64)
    /// Serve it stale: the caller allowed that (`max-stale`, §5.2.1.2).
    case staleAllowed(age: Int64, why: StaleReason)
    /// Serve it stale now and refresh it in the background with these conditional fields
    /// (RFC 5861 §3); the fields may be empty, then the refresh is a plain fetch.
    case staleWhileRevalidate(age: Int64, conditionalHeaders: HTTPHeaders)
    /// Ask the origin with these conditional fields first (§4.3.1); a 304 makes it servable.
    case mustRevalidate(conditionalHeaders: HTTPHeaders, why: RevalidationReason)
    /// Do not use it; fetch from the origin.
    case mustFetch(FetchReason)
    /// The caller said `only-if-cached` and nothing stored may answer: reply 504 (§5.2.1.7).
    case onlyIfCachedMiss

    /// Why a stale response may be served.
    public enum StaleReason: String, Sendable, Equatable {
        /// The request's `max-stale` covers the staleness.
        case maxStale = "max-stale"
    }

    /// Why a stored response must be validated before use.
    public enum RevalidationReason: String, Sendable, Equatable {
        /// The response says `no-cache` (§5.2.2.4; the field-name form is treated as the bare one).
        case responseNoCache = "response-no-cache"
        /// The request says `no-cache`, or `Pragma: no-cache` without `Cache-Control` (§5.2.1.4, §5.4).
        case requestNoCache = "request-no-cache"
        /// The response is older than the request's `max-age` (or that `max-age` is invalid) (§5.2.1.1).
        case requestMaxAge = "request-max-age"
        /// The response will not stay fresh for the request's `min-fresh` (§5.2.1.3).
        case requestMinFresh = "request-min-fresh"
        /// The response is stale and `must-revalidate`, `proxy-revalidate` or `s-maxage` forbids
        /// serving it stale (§5.2.2.2, §5.2.2.8, §5.2.2.10).
        case mustRevalidateDirective = "must-revalidate"
        /// The response is stale and nothing allows serving it so.
        case stale = "stale"
    }

    /// Why a stored response cannot answer at all.
    public enum FetchReason: Sendable, Equatable, CustomStringConvertible {
        /// The request method is not GET or HEAD.
        case methodNotCacheable
        /// A GET cannot be answered by a stored HEAD response (no body).
        case storedResponseIsHead
        /// The request carries `Authorization` and the response does not allow shared reuse (§3.5).
        case authorization
        /// Validation is needed but the stored response has neither `ETag` nor `Last-Modified`.
        case noValidator(RevalidationReason)

        /// A stable short name for logs and explain output.
        public var description: String {
            switch self {
            case .methodNotCacheable: "method"
            case .storedResponseIsHead: "stored-head"
            case .authorization: "authorization"
            case .noValidator(let why): "no-validator; \(why.rawValue)"
            }
        }
    }
}
