import HTTPServer

/// Every kind of problem the Larder API answers with, one case each: the stable `type` URI of its
/// problem+json body (RFC 9457 §3.1.1) is the server's base (`HTTPProblemType.base`) followed by the raw
/// value, so the admin API, `/filters` and `/fetch` share one namespace with the server's own problems
/// (`HTTPProblemType`: 404, 405, 408, 503 and the parser's refusals, which HTTPServer answers below this
/// target). `openapi.yaml` lists every URI in its `ProblemType` enum; a test checks that it does.
public enum ProblemType: String, Sendable, CaseIterable {
    // The admin API (`/cache`, `/fetches`, the operator page).

    /// A path segment that should be a cache key is not 64 lower-case hex digits (400).
    case invalidKey = "invalid-key"
    /// No cache entry has the key (404); the same URI as the router's 404.
    case notFound = "not-found"
    /// Admin credentials are missing or do not match (401, RFC 6750 §3.1).
    case unauthorized = "unauthorized"
    /// The client may not use the admin API (403): not on loopback while no token is configured.
    case forbidden = "forbidden"
    /// The `Authorization` field is malformed (400, RFC 6750 §3.1 `invalid_request`).
    case invalidAuthorization = "invalid-authorization"
    /// A read-only admin token was used for a purge, delete or filter change (403, RFC 6750 §3.1).
    case insufficientScope = "insufficient-scope"
    /// A state-changing request a browser could have made lacks the `X-Larder-CSRF` header (403).
    case missingCSRFHeader = "missing-csrf-header"
    /// No requested range overlaps the body (416, RFC 9110 §15.5.17).
    case rangeNotSatisfiable = "range-not-satisfiable"
    /// The store failed (500) or is full (503).
    case storageError = "storage-error"
    /// A query parameter is unknown, repeated, empty or out of range (400).
    case badQuery = "bad-query"

    // `/filters`.

    /// The body is not valid JSON, or a field is unknown, of the wrong type or out of range (400); the
    /// problem's `path` member names the field.
    case invalidFilter = "invalid-filter"
    /// A filter with that name already exists (409).
    case filterExists = "filter-exists"
    /// No filter has that name, or `before` names none (404).
    case filterNotFound = "filter-not-found"
    /// `If-Match` does not name the current version (412, RFC 9110 §13.1.1).
    case preconditionFailed = "precondition-failed"
    /// `If-Match` is not a valid entity-tag list (400).
    case invalidPrecondition = "invalid-precondition"
    /// The body is not `application/json` (415, RFC 9110 §15.5.16).
    case unsupportedMediaType = "unsupported-media-type"
    /// The chain is declared by a filters file in `replace` mode, so the API may not change it (409).
    case filtersOwnedByFile = "filters-owned-by-file"

    // `/fetch` (and `/filters/explain`, whose `url` is checked as `/fetch` checks it).

    /// `url` is missing, repeated, or not an absolute http(s) URL Larder accepts (400).
    case invalidURL = "invalid-url"
    /// A request header cannot be forwarded to the origin (400).
    case invalidRequestHeader = "invalid-request-header"
    /// The owning filter's action is `deny` (403).
    case deniedByFilter = "denied-by-filter"
    /// The address the origin resolves to is refused by the address policy (403).
    case addressRefused = "address-refused"
    /// The request already passed through this Larder (`Via`) (508).
    case loopDetected = "loop-detected"
    /// The origin could not be reached and nothing stored may answer (502).
    case originUnreachable = "origin-unreachable"
    /// The origin did not answer in time (504).
    case originTimeout = "origin-timeout"
    /// The origin's body is larger than `--max-object-bytes` (502).
    case bodyTooLarge = "body-too-large"
    /// The origin's response head is too large (502).
    case headersTooLarge = "headers-too-large"
    /// The origin broke the exchange (502).
    case originProtocolError = "origin-protocol-error"
    /// The caller said `only-if-cached` and nothing stored may answer (504, RFC 9111 §5.2.1.7).
    case onlyIfCached = "only-if-cached"
    /// Too many callers already wait on the same fetch (503).
    case tooManyWaiters = "too-many-waiters"
    /// A caller waited too long for a shared fetch's response head (504).
    case waiterTimeout = "waiter-timeout"

    // Who may use `/fetch` (403).

    /// The URL is not signed, or its signature is malformed, wrong, expired or on an unsafe method.
    case signatureInvalid = "signature-invalid"
    /// The `Larder-Token` field holds no configured caller token, or none was given where one is required.
    case tokenInvalid = "token-invalid"

    /// The type URI, `https://larder.dev/problems/<raw value>`.
    public var uri: String { HTTPProblemType.uri(rawValue) }
}
