import FoundationEssentials
import HTTPCore

/// Which entries a listing shows, and which page.
public struct CacheEntryQuery: Sendable, Equatable {
    /// Only entries of this host (compared without case).
    public var host: String?
    /// Only entries whose canonical URL starts with this.
    public var urlPrefix: String?
    /// Only entries of this media type: exact (`text/html`) or a whole top-level type (`image/*`).
    public var contentType: String?
    /// Only entries carrying at least one of these tags; empty for no tag condition.
    public var tags: [String] = []
    /// At most this many entries per page.
    public var limit: Int
    /// The `nextCursor` of the previous page, `nil` for the first.
    public var cursor: String?

    /// Creates a query.
    /// - Parameters:
    ///   - host: host filter.
    ///   - urlPrefix: URL prefix filter.
    ///   - contentType: media type filter.
    ///   - limit: page size (at least 1).
    ///   - cursor: where the previous page ended.
    public init(
        host: String? = nil, urlPrefix: String? = nil, contentType: String? = nil, limit: Int = 100,
        cursor: String? = nil
    ) {
        self.host = host
        self.urlPrefix = urlPrefix
        self.contentType = contentType
        self.limit = max(1, limit)
        self.cursor = cursor
    }

    /// Whether an entry passes the filters (not the cursor).
    /// - Parameter entry: the candidate.
    /// - Returns: `true` when every given filter holds.
    public func matches(_ entry: StoredEntry) -> Bool {
        if let contentType, !Self.mediaType(entry.mediaType, matches: contentType) { return false }
        return scope.matches(entry)
    }

    /// The listing's host, prefix and tag filters as the purge scope that selects the same entries: one
    /// rule for what matches, listing or purging.
    public var scope: CachePurgeScope { CachePurgeScope(host: host, urlPrefix: urlPrefix, tags: tags) }

    /// Whether a media type passes a `type` filter (the listing's `type`, a filter's `contentTypes`).
    /// - Parameters:
    ///   - mediaType: the media type, lower-cased, without parameters (`StoredEntry.mediaType(of:)`).
    ///   - filter: `type/subtype`, `type/*`, or `*/*` (and `*`) for any, case-insensitive.
    /// - Returns: the verdict; `false` for no media type.
    public static func mediaType(_ mediaType: String?, matches filter: String) -> Bool {
        guard let mediaType else { return false }
        let filter = filter.lowercased()
        if filter == "*/*" || filter == "*" { return true }
        if filter.hasSuffix("/*") { return mediaType.hasPrefix(String(filter.dropLast())) }
        return mediaType == filter
    }

    /// The host of an absolute URL, lower-cased, without user info or port.
    /// - Parameter url: `scheme://[user@]host[:port][/...]`.
    /// - Returns: the host, or "" when the URL has none.
    public static func host(of url: String) -> String {
        // On the UTF-8 bytes in place: every miss stores its host, and Character-level searching cost about
        // 30 000 instructions a call (callgrind), a copy of the bytes to an array 1 000.
        var url = url
        return url.withUTF8 { bytes in
            var start = 0
            while start + 2 < bytes.count,
                !(bytes[start] == UInt8(ascii: ":") && bytes[start + 1] == UInt8(ascii: "/")
                    && bytes[start + 2] == UInt8(ascii: "/"))
            {
                start += 1
            }
            guard start + 2 < bytes.count else { return "" }
            start += 3
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: "/"), bytes[end] != UInt8(ascii: "?"),
                bytes[end] != UInt8(ascii: "#")
            {
                end += 1
            }
            if let at = bytes[start..<end].lastIndex(of: UInt8(ascii: "@")) { start = at + 1 }
            if bytes[start..<end].first == UInt8(ascii: "[") {
                if let close = bytes[start..<end].firstIndex(of: UInt8(ascii: "]")) { end = close + 1 }
            } else if let colon = bytes[start..<end].firstIndex(of: UInt8(ascii: ":")) {
                end = colon
            }
            return String(asciiLowercasing: bytes[start..<end])
        }
    }

    /// The position a cursor encodes.
    /// - Parameter cursor: a `nextCursor` value.
    /// - Returns: the store's sequence number the next page starts below.
    /// - Throws: `CacheStoreError.invalidCursor` for anything else.
    public static func position(of cursor: String) throws -> Int64 {
        guard cursor.hasPrefix("c"), let value = Int64(cursor.dropFirst()), value > 0 else {
            throw CacheStoreError.invalidCursor(cursor)
        }
        return value
    }

    /// The cursor that continues below a store sequence number.
    /// - Parameter position: the sequence number of the last entry of a page.
    /// - Returns: an opaque cursor.
    public static func cursor(after position: Int64) -> String { "c\(position)" }
}

/// One page of a listing.
public struct CacheEntryPage: Sendable, Equatable {
    /// Entries, newest first.
    public var entries: [StoredEntry]
    /// The cursor of the next page, `nil` on the last.
    public var nextCursor: String?

    /// Creates a page.
    public init(entries: [StoredEntry], nextCursor: String?) {
        self.entries = entries
        self.nextCursor = nextCursor
    }
}
