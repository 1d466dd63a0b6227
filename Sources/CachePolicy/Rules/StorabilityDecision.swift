/// Whether a response may be stored, and if not, why
/// ([RFC 9111 §3](https://www.rfc-editor.org/rfc/rfc9111#section-3)).
public enum StorabilityDecision: Sendable, Equatable {
    /// The response may be stored.
    case store
    /// The response must not be stored.
    case doNotStore(Reason)

    /// Why a response is not stored; the raw value is a stable name for logs and explain output.
    public enum Reason: String, Sendable, Equatable {
        /// The request method is not GET or HEAD.
        case methodNotCacheable = "method"
        /// The status is not final (1xx) or outside 100…599.
        case statusNotFinal = "status-not-final"
        /// 206 Partial Content: Larder stores whole representations only.
        case partialContent = "partial-content"
        /// 304 Not Modified updates a stored response (§4.3.4); it is never stored itself.
        case notModified = "not-modified"
        /// `must-understand` is present and Larder does not know the status code (§5.2.2.3).
        case statusNotUnderstood = "must-understand"
        /// `no-store` in the request (§5.2.1.5).
        case requestNoStore = "request-no-store"
        /// `no-store` in the response (§5.2.2.5).
        case responseNoStore = "no-store"
        /// `private` in the response, in any form: Larder is a shared cache (§5.2.2.7).
        case privateResponse = "private"
        /// The request carried `Authorization` and the response does not say `public`, `s-maxage` or
        /// `must-revalidate` (§3.5).
        case authorization = "authorization"
        /// `Vary: *` can never be matched (§4.1).
        case varyAny = "vary-star"
        /// `Set-Cookie` in the response: Larder's choice, see ``Storability``.
        case setCookie = "set-cookie"
        /// No explicit freshness, no `public`, and a status that is not heuristically cacheable (§3).
        case noFreshnessInformation = "no-freshness"
    }
}
