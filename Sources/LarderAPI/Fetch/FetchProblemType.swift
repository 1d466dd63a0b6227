import HTTPServer

/// The stable `type` URIs of `/fetch` problem+json answers (RFC 9457 §3.1.1), in the server's namespace.
public enum FetchProblemType {
    /// `url` is missing, repeated, or not an absolute http(s) URL Larder accepts (400).
    public static let invalidURL = HTTPProblemType.uri("invalid-url")
    /// A request header cannot be forwarded to the origin (400).
    public static let invalidRequestHeader = HTTPProblemType.uri("invalid-request-header")
    /// The owning filter's action is `deny` (403).
    public static let denied = HTTPProblemType.uri("denied-by-filter")
    /// The address the origin resolves to is refused by the address policy (403).
    public static let addressRefused = HTTPProblemType.uri("address-refused")
    /// The request already passed through this Larder (`Via`) (508).
    public static let loopDetected = HTTPProblemType.uri("loop-detected")
    /// The origin could not be reached and nothing stored may answer (502).
    public static let originUnreachable = HTTPProblemType.uri("origin-unreachable")
    /// The origin did not answer in time (504).
    public static let originTimeout = HTTPProblemType.uri("origin-timeout")
    /// The origin's body is larger than `--max-object-bytes` (502).
    public static let bodyTooLarge = HTTPProblemType.uri("body-too-large")
    /// The origin's response head is too large (502).
    public static let headersTooLarge = HTTPProblemType.uri("headers-too-large")
    /// The origin broke the exchange (502).
    public static let originProtocolError = HTTPProblemType.uri("origin-protocol-error")
    /// The caller said `only-if-cached` and nothing stored may answer (504, RFC 9111 §5.2.1.7).
    public static let onlyIfCached = HTTPProblemType.uri("only-if-cached")
    /// Too many callers already wait on the same fetch (503).
    public static let tooManyWaiters = HTTPProblemType.uri("too-many-waiters")
    /// A caller waited too long for a shared fetch's response head (504).
    public static let waiterTimeout = HTTPProblemType.uri("waiter-timeout")

    /// Every type URI of `/fetch`, for documentation and tests that check they stay distinct.
    public static let all: [String] = [
        invalidURL, invalidRequestHeader, denied, addressRefused, loopDetected, originUnreachable, originTimeout,
        bodyTooLarge, headersTooLarge, originProtocolError, onlyIfCached, tooManyWaiters, waiterTimeout,
    ]
}
