import HTTPServer

/// The stable `type` URIs of the admin API's problem+json answers (RFC 9457 §3.1.1), under the
/// server's base (`HTTPProblemType.base`), so that every Larder problem type shares one namespace.
public enum APIProblemType {
    /// A path segment that should be a cache key is not 64 hex digits (400).
    public static let invalidKey = HTTPProblemType.uri("invalid-key")
    /// No cache entry has the key (404).
    public static let notFound = HTTPProblemType.notFound
    /// Admin credentials are missing or do not match (401, RFC 6750 §3.1).
    public static let unauthorized = HTTPProblemType.uri("unauthorized")
    /// The client may not use the admin API (403): not on loopback while no token is configured.
    public static let forbidden = HTTPProblemType.uri("forbidden")
    /// The `Authorization` field is malformed (400, RFC 6750 §3.1 `invalid_request`).
    public static let invalidAuthorization = HTTPProblemType.uri("invalid-authorization")
    /// A read-only admin token was used for a purge, delete or filter change (403, RFC 6750 §3.1).
    public static let insufficientScope = HTTPProblemType.uri("insufficient-scope")
    /// A state-changing request a browser could have made lacks the `X-Larder-CSRF` header (403).
    public static let missingCSRFHeader = HTTPProblemType.uri("missing-csrf-header")
    /// No requested range overlaps the body (416, RFC 9110 §15.5.17).
    public static let rangeNotSatisfiable = HTTPProblemType.uri("range-not-satisfiable")
    /// The store failed (500) or is full (503).
    public static let storageError = HTTPProblemType.uri("storage-error")
    /// A query parameter is unknown, repeated, empty or out of range (400).
    public static let badQuery = HTTPProblemType.uri("bad-query")

    /// Every type URI of the admin API, for documentation and for tests that check they stay distinct.
    public static let all: [String] = [
        invalidKey, notFound, unauthorized, forbidden, invalidAuthorization, rangeNotSatisfiable, storageError,
        badQuery, missingCSRFHeader, insufficientScope,
    ]
}
