public import HTTPCore

/// The content coding a request is served in, as far as the cache is concerned: `gzip` when the caller
/// accepts it (RFC 9110 §12.5.3), else `identity`. Larder can serve no other coding, so every
/// `Accept-Encoding` a caller may send falls into one of these two classes.
///
/// It is what `Vary: Accept-Encoding` keys on (``Vary/normalizedValue(of:in:)``) and what Larder asks a
/// shared origin fetch for, so that `gzip, br`, `br, gzip, deflate` and `gzip` are one stored variant
/// and one origin fetch, not one each, and a stored variant never holds a coding its callers cannot
/// decode (a `br` answer to a caller's `gzip, br`, replayed to a `gzip`-only caller).
public enum EncodingVariant: String, Sendable, Hashable {
    /// No content coding.
    case identity
    /// `Content-Encoding: gzip`.
    case gzip

    /// The class of a request's `Accept-Encoding` (absent: `identity`, as `AcceptEncoding` reads it).
    /// - Parameter requestHeaders: the request's headers.
    public init(requestHeaders: HTTPHeaders) {
        self = AcceptEncoding(requestHeaders).acceptsGzip ? .gzip : .identity
    }

    /// The `Accept-Encoding` value Larder sends the origin for this class: the origin may then answer in
    /// this coding or without one, and either suits every caller of the class.
    public var acceptEncodingField: String { rawValue }
}
