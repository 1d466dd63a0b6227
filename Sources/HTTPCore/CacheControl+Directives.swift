/// Named accessors for the directives of [RFC 9111 §5.2](https://www.rfc-editor.org/rfc/rfc9111#section-5.2)
/// and [RFC 5861](https://www.rfc-editor.org/rfc/rfc5861). A flag is true when the directive appears in
/// any form, arguments and malformed ones included: presence alone is the restrictive reading.
extension CacheControl {
    /// `no-store` (request §5.2.1.5, response §5.2.2.5).
    public var noStore: Bool { contains(lowercasedName: "no-store") }
    /// `no-cache` (request §5.2.1.4, response §5.2.2.4), bare or with field names.
    public var noCache: Bool { contains(lowercasedName: "no-cache") }
    /// `private` (response §5.2.2.7), bare or with field names.
    public var isPrivate: Bool { contains(lowercasedName: "private") }
    /// `public` (response §5.2.2.9).
    public var isPublic: Bool { contains(lowercasedName: "public") }
    /// `must-revalidate` (response §5.2.2.2).
    public var mustRevalidate: Bool { contains(lowercasedName: "must-revalidate") }
    /// `proxy-revalidate` (response §5.2.2.8).
    public var proxyRevalidate: Bool { contains(lowercasedName: "proxy-revalidate") }
    /// `must-understand` (response §5.2.2.3).
    public var mustUnderstand: Bool { contains(lowercasedName: "must-understand") }
    /// `no-transform` (request §5.2.1.6, response §5.2.2.6).
    public var noTransform: Bool { contains(lowercasedName: "no-transform") }
    /// `only-if-cached` (request §5.2.1.7).
    public var onlyIfCached: Bool { contains(lowercasedName: "only-if-cached") }
    /// `immutable` ([RFC 8246](https://www.rfc-editor.org/rfc/rfc8246)).
    public var immutable: Bool { contains(lowercasedName: "immutable") }

    /// `max-age` (request §5.2.1.1, response §5.2.2.1).
    public var maxAge: DeltaSeconds { deltaSeconds(lowercasedName: "max-age") }
    /// `s-maxage` (response §5.2.2.10).
    public var sMaxAge: DeltaSeconds { deltaSeconds(lowercasedName: "s-maxage") }
    /// `max-stale` (request §5.2.1.2); ``DeltaSeconds/noArgument`` means any staleness.
    public var maxStale: DeltaSeconds { deltaSeconds(lowercasedName: "max-stale") }
    /// `min-fresh` (request §5.2.1.3).
    public var minFresh: DeltaSeconds { deltaSeconds(lowercasedName: "min-fresh") }
    /// `stale-while-revalidate` ([RFC 5861 §3](https://www.rfc-editor.org/rfc/rfc5861#section-3)).
    public var staleWhileRevalidate: DeltaSeconds { deltaSeconds(lowercasedName: "stale-while-revalidate") }
    /// `stale-if-error` ([RFC 5861 §4](https://www.rfc-editor.org/rfc/rfc5861#section-4)).
    public var staleIfError: DeltaSeconds { deltaSeconds(lowercasedName: "stale-if-error") }
}
