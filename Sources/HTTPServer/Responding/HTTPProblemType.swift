public import HTTPCore

/// The stable `type` URIs of Larder's problem+json bodies (RFC 9457 §3.1.1), all under one base.
public enum HTTPProblemType {
    /// The base every problem type URI starts with.
    public static let base = "https://larder.dev/problems/"

    /// The type URI for a kind of problem.
    /// - Parameter slug: the kind, in kebab case (`not-found`).
    /// - Returns: the base followed by the slug.
    public static func uri(_ slug: String) -> String { base + slug }

    /// No route for the path (404).
    public static let notFound = uri("not-found")
    /// The path exists but not with this method (405).
    public static let methodNotAllowed = uri("method-not-allowed")
    /// The request head or body did not arrive in time (408).
    public static let requestTimeout = uri("request-timeout")
    /// The server is at its connection limit (503).
    public static let overloaded = uri("overloaded")

    /// The type URI for a request the parser refused, by the status it prescribed.
    /// - Parameter status: the parser's status (400, 413, 414, 431, 501, 505).
    /// - Returns: a type URI naming that kind of malformed request.
    public static func parseFailure(status: HTTPStatus) -> String {
        switch status.code {
        case 413: uri("content-too-large")
        case 414: uri("uri-too-long")
        case 431: uri("header-fields-too-large")
        case 501: uri("not-implemented")
        case 505: uri("version-not-supported")
        default: uri("bad-request")
        }
    }
}

extension ProblemDetails {
    /// A problem whose title is the status's reason phrase.
    /// - Parameters:
    ///   - status: the response status.
    ///   - type: the type URI, from `HTTPProblemType`.
    ///   - detail: what went wrong this time.
    /// - Returns: the problem.
    public static func make(status: HTTPStatus, type: String, detail: String? = nil) -> ProblemDetails {
        ProblemDetails(type: type, title: status.reasonPhrase, status: status.code, detail: detail)
    }
}
