import HTTPServer

/// The stable `type` URIs of `/filters` problem+json answers (RFC 9457 §3.1.1), in the same namespace as
/// `APIProblemType`.
public enum FiltersProblemType {
    /// The body is not valid JSON, or a field is unknown, of the wrong type or out of range (400); the
    /// problem's `path` member names the field.
    public static let invalidFilter = HTTPProblemType.uri("invalid-filter")
    /// A filter with that name already exists (409).
    public static let filterExists = HTTPProblemType.uri("filter-exists")
    /// No filter has that name, or `before` names none (404).
    public static let filterNotFound = HTTPProblemType.uri("filter-not-found")
    /// `If-Match` does not name the current version (412, RFC 9110 §13.1.1).
    public static let preconditionFailed = HTTPProblemType.uri("precondition-failed")
    /// `If-Match` is not a valid entity-tag list (400).
    public static let invalidPrecondition = HTTPProblemType.uri("invalid-precondition")
    /// The body is not `application/json` (415, RFC 9110 §15.5.16).
    public static let unsupportedMediaType = HTTPProblemType.uri("unsupported-media-type")
    /// The chain is declared by a filters file in `replace` mode, so the API may not change it (409).
    public static let ownedByFile = HTTPProblemType.uri("filters-owned-by-file")
    /// The `url` of `/filters/explain` is not an absolute http(s) URL Larder accepts (400).
    public static let invalidURL = HTTPProblemType.uri("invalid-url")

    /// Every type URI of `/filters`.
    public static let all: [String] = [
        invalidFilter, filterExists, filterNotFound, preconditionFailed, invalidPrecondition, unsupportedMediaType,
        invalidURL, ownedByFile,
    ]
}
