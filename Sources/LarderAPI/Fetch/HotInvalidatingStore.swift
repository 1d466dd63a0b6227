public import CacheCore
public import FoundationEssentials

/// A `CacheStore` that forwards every call to the real store and keeps `/fetch`'s in-memory hot
/// entries consistent with it: whatever deletes, purges or rewrites entries through this store (the
/// `/cache` API, `/fetch` itself) also drops them from memory. Hand this store, not the wrapped one, to
/// every API that changes entries. The filter chain and the background sweep do not go through it: the
/// chain is no entry, and memory serves only fresh entries, which a sweep never selects.
public final class HotInvalidatingStore: CacheStore {
    /// The store every call goes to.
    public let wrapped: any CacheStore
    let hot: HotEntryCache

    init(wrapping wrapped: any CacheStore, hot: HotEntryCache) {
        self.wrapped = wrapped
        self.hot = hot
    }

    public func entry(for key: CacheKey) throws -> StoredEntry? { try wrapped.entry(for: key) }
    public func entryToServe(for key: CacheKey) throws -> StoredEntry? { try wrapped.entryToServe(for: key) }

    public func varyNames(forPrimaryKey primaryKey: CacheKey) throws -> [String]? {
        try wrapped.varyNames(forPrimaryKey: primaryKey)
    }

    public func lookUpToServe(primaryKey: CacheKey) throws -> PrimaryLookup {
        try wrapped.lookUpToServe(primaryKey: primaryKey)
    }

    public func mayHold(primaryKey: CacheKey) -> Bool {
        wrapped.mayHold(primaryKey: primaryKey)
    }

    public func openBody(of entry: StoredEntry, form: CacheBodyForm) throws -> any CacheBodyReader {
        do {
            return try wrapped.openBody(of: entry, form: form)
        } catch {
            hot.remove(entry.key)
            throw error
        }
    }

    public var purgeCount: UInt64 { wrapped.purgeCount }

    public func beginWrite(hints: CacheBodyHints) throws -> any CacheBodyWriter {
        try wrapped.beginWrite(hints: hints)
    }

    @discardableResult
    public func updateMetadata(_ entry: StoredEntry) throws -> Bool {
        hot.remove(entry.key)
        // Again after the update: a hit may have put the old metadata back in memory meanwhile.
        defer { hot.remove(entry.key) }
        return try wrapped.updateMetadata(entry)
    }

    public func recordHits(_ key: CacheKey, count: Int, at now: Date) {
        wrapped.recordHits(key, count: count, at: now)
    }

    @discardableResult
    public func delete(_ key: CacheKey) throws -> Bool {
        hot.remove(key)
        defer { hot.remove(key) }
        return try wrapped.delete(key)
    }

    @discardableResult
    public func delete(_ entry: StoredEntry) throws -> Bool {
        hot.remove(entry.key)
        defer { hot.remove(entry.key) }
        return try wrapped.delete(entry)
    }

    /// Purges in the store and drops the selected entries from memory, before and after (a hit may
    /// have put one back meanwhile). A soft purge drops them too: memory serves only fresh entries, and
    /// the store's copy now says stale.
    @discardableResult
    public func purge(_ scope: CachePurgeScope, soft: Bool) throws -> Int {
        forget(scope)
        defer { forget(scope) }
        return try wrapped.purge(scope, soft: soft)
    }

    public func previewPurge(_ scope: CachePurgeScope, soft: Bool, limit: Int) throws -> CachePurgePreview {
        try wrapped.previewPurge(scope, soft: soft, limit: limit)
    }

    /// Drops the hot entries a purge selects (one URL's at once, the others by a walk).
    private func forget(_ scope: CachePurgeScope) {
        if let url = scope.onlyURL {
            hot.remove(url: url)
        } else {
            hot.remove { scope.matches($0) }
        }
    }

    public func list(_ query: CacheEntryQuery) throws -> CacheEntryPage { try wrapped.list(query) }
}
