/// Which entries a purge selects: every condition given must hold, several tags are a union
/// (`DELETE /cache?tag=a&tag=b&host=h`: entries tagged `a` or `b`, of host `h`). No condition selects
/// every entry.
public struct CachePurgeScope: Sendable, Equatable, CustomStringConvertible {
    /// Every stored variant of this canonical URL (all the `Vary` secondary keys of its primary key).
    public var url: String?
    /// Entries whose URL's host is this (compared without case).
    public var host: String?
    /// Entries whose canonical URL starts with this.
    public var urlPrefix: String?
    /// Entries carrying at least one of these tags; empty for no tag condition.
    public var tags: [String]

    /// Creates a scope.
    /// - Parameters:
    ///   - url: a canonical URL, all its variants.
    ///   - host: a host.
    ///   - urlPrefix: a canonical URL prefix.
    ///   - tags: tags, any of which selects.
    public init(url: String? = nil, host: String? = nil, urlPrefix: String? = nil, tags: [String] = []) {
        self.url = url
        self.host = host?.lowercased()
        self.urlPrefix = urlPrefix
        self.tags = tags
    }

    /// Every entry.
    public static let all = CachePurgeScope()

    /// Entries of one host.
    /// - Parameter host: the host, any case.
    /// - Returns: the scope.
    public static func host(_ host: String) -> CachePurgeScope { CachePurgeScope(host: host) }

    /// Entries under one canonical URL prefix.
    /// - Parameter prefix: the prefix.
    /// - Returns: the scope.
    public static func urlPrefix(_ prefix: String) -> CachePurgeScope { CachePurgeScope(urlPrefix: prefix) }

    /// Every variant of one canonical URL: what `DELETE /cache?url=` and the invalidation after an unsafe
    /// method (RFC 9111 §4.4) remove.
    /// - Parameter url: the canonical URL (`CacheKey.make(canonicalURL:)`'s input).
    /// - Returns: the scope.
    public static func url(_ url: String) -> CachePurgeScope { CachePurgeScope(url: url) }

    /// Entries carrying any of these tags.
    /// - Parameter tags: the tags.
    /// - Returns: the scope.
    public static func tags(_ tags: [String]) -> CachePurgeScope { CachePurgeScope(tags: tags) }

    /// Whether the scope has no condition (it selects everything).
    public var isAll: Bool { url == nil && host == nil && urlPrefix == nil && tags.isEmpty }

    /// The URL when the scope is one URL and nothing else: its entries (and its `Vary` names) are found
    /// by the URL alone, without a walk.
    public var onlyURL: String? { host == nil && urlPrefix == nil && tags.isEmpty ? url : nil }

    /// Whether the scope selects an entry. The entry's host is worked out (it allocates) only when the
    /// scope has a host condition: memory-tier purges run this under the tier's lock.
    /// - Parameter entry: the candidate.
    /// - Returns: `true` when every condition holds.
    public func matches(_ entry: StoredEntry) -> Bool {
        if let wanted = url, wanted != entry.url { return false }
        if let urlPrefix, !entry.url.hasPrefix(urlPrefix) { return false }
        if !tags.isEmpty, !entry.tags.contains(where: tags.contains) { return false }
        if let wanted = host, wanted != entry.host { return false }
        return true
    }

    /// The kinds of purge, the `kind` label of the purge metrics.
    public enum Kind: String, Sendable, CaseIterable {
        case all, url, tag, host, prefix
        /// Several kinds of condition combined.
        case mixed
    }

    /// This purge's kind, for metrics and logs.
    public var kind: Kind {
        let conditions: [(Bool, Kind)] = [
            (url != nil, .url), (!tags.isEmpty, .tag), (host != nil, .host), (urlPrefix != nil, .prefix),
        ]
        let kinds = conditions.filter(\.0).map(\.1)
        switch kinds.count {
        case 0: return .all
        case 1: return kinds[0]
        default: return .mixed
        }
    }

    public var description: String {
        var parts: [String] = []
        if let url { parts.append("url=\(url)") }
        for tag in tags { parts.append("tag=\(tag)") }
        if let host { parts.append("host=\(host)") }
        if let urlPrefix { parts.append("prefix=\(urlPrefix)") }
        return parts.isEmpty ? "all" : parts.joined(separator: "&")
    }
}

/// What a purge would select (`CacheStore.previewPurge`).
public struct CachePurgePreview: Sendable, Equatable {
    /// How many entries it selects.
    public var count: Int
    /// The first of their keys, newest first.
    public var keys: [CacheKey]

    /// Creates a preview.
    public init(count: Int, keys: [CacheKey]) {
        self.count = count
        self.keys = keys
    }
}
