public import HTTPCore

/// The caching directives of a caller's request, [RFC 9111 §5.2.1](https://www.rfc-editor.org/rfc/rfc9111#section-5.2.1),
/// with `Pragma: no-cache` read as `no-cache` when the request has no `Cache-Control` (§5.4).
public struct RequestDirectives: Sendable, Equatable {
    /// The request's `Cache-Control`.
    public let cacheControl: CacheControl
    /// `no-cache`, from `Cache-Control` or from `Pragma`.
    public let noCache: Bool

    /// Reads the request's header section.
    ///
    /// - Parameter headers: The caller's request header section.
    public init(headers: HTTPHeaders) {
        let lines = headers.values(for: "Cache-Control")
        cacheControl = CacheControl(fieldValues: lines)
        if !lines.isEmpty {
            noCache = cacheControl.noCache
        } else {
            noCache = headers.listValues(for: "Pragma").contains { $0.equalsIgnoringASCIICase("no-cache") }
        }
    }
}
