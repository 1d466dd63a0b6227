/// How long a response stays fresh, and which rule said so
/// ([RFC 9111 §4.2.1](https://www.rfc-editor.org/rfc/rfc9111#section-4.2.1)), for decisions and for
/// the explain endpoint.
public struct FreshnessLifetime: Sendable, Equatable {
    /// The rule that produced a lifetime.
    public enum Source: String, Sendable, Equatable {
        /// A filter's `ttl` replaced the origin's word.
        case ttlOverride = "ttl"
        /// `s-maxage` (a shared cache reads it first).
        case sMaxAge = "s-maxage"
        /// `max-age`.
        case maxAge = "max-age"
        /// `Expires` minus `Date`.
        case expires = "expires"
        /// A share of the `Last-Modified` age (§4.2.2).
        case heuristic = "heuristic"
        /// No explicit lifetime and no heuristic applies: stale at once.
        case none = "none"
        /// Freshness information that is invalid or duplicated with different values: stale at once
        /// (§4.2.1 encourages treating it so).
        case invalid = "invalid"
        /// A purge marked the stored response stale (`DELETE /cache?soft=true`): its lifetime ends at
        /// the age it had then.
        case purged = "purged"
    }

    /// The lifetime in seconds (never negative).
    public var seconds: Int64
    /// Which rule produced it.
    public var source: Source
    /// Whether a filter's `minTtl` or `maxTtl` changed it.
    public var isClamped: Bool

    /// Creates a lifetime.
    public init(seconds: Int64, source: Source, isClamped: Bool = false) {
        self.seconds = seconds
        self.source = source
        self.isClamped = isClamped
    }
}
