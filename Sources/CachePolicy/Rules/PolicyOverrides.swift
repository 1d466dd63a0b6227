/// Operator settings that tune the RFC 9111 rules for one request: what a filter's `ttl`, `minTtl`,
/// `maxTtl`, `staleIfError`, `staleWhileRevalidate` and `staleIfDisconnected` say (DESIGN.md, Filters), and the heuristic
/// freshness knobs of [RFC 9111 §4.2.2](https://www.rfc-editor.org/rfc/rfc9111#section-4.2.2).
///
/// RFC 9111 §4.2.4 lets a cache serve stale responses under "an out-of-band contract"; these settings
/// are that contract. They change *how long* a response counts as fresh and *how long* it may be
/// served stale. They never lift the origin's `no-store`, `private`, `no-cache`, `must-revalidate`,
/// `proxy-revalidate` or `s-maxage`: a `ttl` on a `no-cache` response still revalidates every time.
public struct PolicyOverrides: Sendable, Equatable {
    /// A freshness lifetime, in seconds, that replaces the origin's (explicit or heuristic).
    public var ttl: Int64?
    /// A floor on the freshness lifetime, in seconds.
    public var minTtl: Int64?
    /// A ceiling on the freshness lifetime, in seconds.
    public var maxTtl: Int64?
    /// How long past expiry, in seconds, a stored response may answer when the origin fails
    /// (widens RFC 5861 `stale-if-error`).
    public var staleIfError: Int64?
    /// How long past expiry, in seconds, a stored response may answer while it is refreshed in the
    /// background (widens RFC 5861 `stale-while-revalidate`).
    public var staleWhileRevalidate: Int64?
    /// How long past expiry, in seconds, a stored response may answer when the origin cannot be reached
    /// (RFC 9111 §4.2.4); replaces the `--stale-if-disconnected` setting, 0 turns it off.
    public var staleIfDisconnected: Int64?
    /// The share of the `Date` − `Last-Modified` interval used as a heuristic lifetime, in percent
    /// (RFC 9111 §4.2.2 suggests 10).
    public var heuristicPercent: Int64
    /// The largest heuristic lifetime, in seconds (one day by default).
    public var heuristicCap: Int64

    /// The overrides a filter sets, each with its member name in filter JSON and in `/filters/explain`, in
    /// the order they are written.
    public static var filterMembers: [(name: String, seconds: WritableKeyPath<PolicyOverrides, Int64?>)] {
        [
            ("ttl", \.ttl), ("minTtl", \.minTtl), ("maxTtl", \.maxTtl), ("staleIfError", \.staleIfError),
            ("staleWhileRevalidate", \.staleWhileRevalidate), ("staleIfDisconnected", \.staleIfDisconnected),
        ]
    }

    /// The plain shared-cache rules: no overrides, a 10% heuristic capped at one day.
    public static let none = PolicyOverrides()

    /// Creates overrides; every one left `nil` keeps the origin's word.
    public init(
        ttl: Int64? = nil,
        minTtl: Int64? = nil,
        maxTtl: Int64? = nil,
        staleIfError: Int64? = nil,
        staleWhileRevalidate: Int64? = nil,
        staleIfDisconnected: Int64? = nil,
        heuristicPercent: Int64 = 10,
        heuristicCap: Int64 = 86_400
    ) {
        self.ttl = ttl
        self.minTtl = minTtl
        self.maxTtl = maxTtl
        self.staleIfError = staleIfError
        self.staleWhileRevalidate = staleWhileRevalidate
        self.staleIfDisconnected = staleIfDisconnected
        self.heuristicPercent = heuristicPercent
        self.heuristicCap = heuristicCap
    }
}
