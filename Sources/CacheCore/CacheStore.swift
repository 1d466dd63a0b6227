public import FoundationEssentials
public import HTTPCore

/// Where cached responses live: their metadata, bodies and usage; what `/fetch` and the `/cache` API read and
/// change. The persisted filter chain is a `FilterChainStore`'s, the figures and sweeps of the background
/// maintenance a `CacheMaintenanceStore`'s: a store usually is all three, but each user asks only for what it
/// uses, and a wrapper of entries (the memory tier's) forwards only entries.
///
/// Implementations are synchronous and thread-safe. They block on disk, so callers run them off the
/// connection queues. Every method throws `CacheStoreError` only.
public protocol CacheStore: AnyObject, Sendable {
    /// Looks an entry up by key.
    /// - Parameter key: the primary or secondary key.
    /// - Returns: the metadata, or `nil` on a miss.
    /// - Throws: `CacheStoreError` when the store cannot be read.
    func entry(for key: CacheKey) throws -> StoredEntry?

    /// Looks an entry up to serve it: `entry(for:)`, except that its usage figures (`hitCount`,
    /// `lastAccess`), which serving does not read, may be those it was stored with. A store that keeps
    /// them apart from the entry saves reading them on every request.
    /// - Parameter key: the primary or secondary key.
    /// - Returns: the metadata, or `nil` on a miss.
    /// - Throws: `CacheStoreError` when the store cannot be read.
    func entryToServe(for key: CacheKey) throws -> StoredEntry?

    /// The request header names the responses stored for a URL vary on (RFC 9111 §4.1).
    /// - Parameter primaryKey: `CacheKey.make(canonicalURL:)` of the URL.
    /// - Returns: the lower-cased names, or `nil` when no varying response is stored for the URL.
    /// - Throws: `CacheStoreError` when the store cannot be read.
    func varyNames(forPrimaryKey primaryKey: CacheKey) throws -> [String]?

    /// The lookup every `/fetch` makes first: `varyNames(forPrimaryKey:)` and, when the URL does not vary,
    /// `entryToServe(for:)` of the primary key, which is then the entry's key. A store may answer both from
    /// one read.
    /// - Parameter primaryKey: `CacheKey.make(canonicalURL:)` of the URL.
    /// - Returns: the entry under the primary key, or the names the URL's responses vary on.
    /// - Throws: `CacheStoreError` when the store cannot be read.
    func lookUpToServe(primaryKey: CacheKey) throws -> PrimaryLookup

    /// Whether anything may be stored under the primary key: `false` only when the store certainly holds
    /// neither an entry nor `Vary` names there, so that `lookUpToServe(primaryKey:)` would find nothing.
    /// Answered from memory, without blocking: a caller may ask on a connection's queue.
    /// - Parameter primaryKey: `CacheKey.make(canonicalURL:)` of the URL.
    func mayHold(primaryKey: CacheKey) -> Bool

    /// Opens a reader over the body of an entry returned by `entry(for:)` or `list(_:)`.
    /// - Parameters:
    ///   - entry: the metadata; the reader reads exactly that version of the body.
    ///   - form: identity, gzip (only for `.deflateChunked` entries) or a byte range of the identity body.
    /// - Returns: a reader that produces the bytes chunk by chunk.
    /// - Throws: `.notFound` when the entry was replaced or deleted since, `.formUnavailable`,
    ///   `.invalidRange`, or a storage error.
    func openBody(of entry: StoredEntry, form: CacheBodyForm) throws -> any CacheBodyReader

    /// Starts storing a response body as it arrives; nothing is visible until `commit`.
    /// - Parameter hints: what decides whether compression is worth trying.
    /// - Returns: the writer.
    /// - Throws: `CacheStoreError` when the store cannot be written.
    func beginWrite(hints: CacheBodyHints) throws -> any CacheBodyWriter

    /// How many purges the store has run: a fetch notes it before it sends its request and passes it in
    /// `CacheBodyHints.purgesBefore`, so that a purge between the request and the commit that selects the
    /// entry makes it stale, even when it ran before the body's writer began.
    var purgeCount: UInt64 { get }

    /// Replaces the metadata of an entry after a 304 revalidation (RFC 9111 §4.3.4): headers, dates,
    /// freshness, stale allowance. Body fields, usage and the key are left as stored.
    /// - Parameter entry: the entry as looked up, with the new metadata.
    /// - Returns: `false` when the entry is gone or was replaced by another body meanwhile.
    /// - Throws: `CacheStoreError` when the store cannot be written.
    @discardableResult
    func updateMetadata(_ entry: StoredEntry) throws -> Bool

    /// Counts hits. Cheap: hits are gathered in memory and written in batches.
    /// - Parameters:
    ///   - key: the entry served.
    ///   - count: how many times it was served (a caller that batched hits itself passes its count).
    ///   - now: the clock's time (of the last of them).
    func recordHits(_ key: CacheKey, count: Int, at now: Date)

    /// Deletes one entry.
    /// - Parameter key: its key.
    /// - Returns: whether there was one.
    /// - Throws: `CacheStoreError` when the store cannot be written.
    @discardableResult
    func delete(_ key: CacheKey) throws -> Bool

    /// Deletes one entry unless it was replaced since it was read: the entry under its key must still
    /// have its body (`StoredEntry.bodyID`), so that a decision taken on an old response never deletes
    /// the new one that took its place.
    /// - Parameter entry: the entry as it was read.
    /// - Returns: whether it was deleted.
    /// - Throws: `CacheStoreError` when the store cannot be written.
    @discardableResult
    func delete(_ entry: StoredEntry) throws -> Bool

    /// Deletes the entries a purge selects, or marks them stale (a soft purge): a soft-purged entry is
    /// kept with `StoredEntry.staleSince` set, so the next request revalidates it and, while the origin
    /// cannot be reached, it may still answer under the offline rules. Either way, a body being written
    /// when the purge runs whose entry the purge matches is committed stale, never fresh. A store may
    /// delete in two steps: when this returns, no read finds the deleted entries, and their space may be
    /// reclaimed later (`CacheStoreStats.reclaimingBytes` until then).
    /// - Parameters:
    ///   - scope: which entries (every condition given must hold; several tags are a union).
    ///   - soft: mark stale instead of deleting.
    /// - Returns: how many entries were deleted or marked.
    /// - Throws: `CacheStoreError` when the store cannot be written.
    @discardableResult
    func purge(_ scope: CachePurgeScope, soft: Bool) throws -> Int

    /// What a purge would select, changing nothing (`?dryRun=true`).
    /// - Parameters:
    ///   - scope: the purge.
    ///   - soft: count as a soft purge does: entries already marked stale are left out.
    ///   - limit: how many keys to return at most, newest first.
    /// - Returns: the count and the first keys.
    /// - Throws: `CacheStoreError` when the store cannot be read.
    func previewPurge(_ scope: CachePurgeScope, soft: Bool, limit: Int) throws -> CachePurgePreview

    /// Lists entries newest first, one page at a time.
    /// - Parameter query: filters, page size and the cursor of the previous page.
    /// - Returns: the page and the cursor of the next one.
    /// - Throws: `.invalidCursor` for a cursor this store did not produce, or a storage error.
    func list(_ query: CacheEntryQuery) throws -> CacheEntryPage
}

/// The form in which a body is read.
public enum CacheBodyForm: Sendable, Equatable {
    /// The body as received.
    case identity
    /// A gzip member (RFC 1952) built from the stored deflate chunks without inflating them.
    case gzip
    /// The identity bytes `range.lowerBound..<range.upperBound`; only the chunks covering it are read.
    case range(Range<Int>)
}

/// What a writer is told up front to decide whether to try compression.
public struct CacheBodyHints: Sendable, Equatable {
    /// The response's `Content-Type`.
    public var contentType: String?
    /// The response's `Content-Encoding`; a body that already has one is stored as it came.
    public var contentEncoding: String?
    /// Whether the response says `Cache-Control: no-transform`: its body is stored as it came, so the
    /// gzip form is never offered for it (RFC 9111 §5.2.2.6, RFC 9110 §7.7).
    public var noTransform: Bool
    /// Whether every caller this body will be served to wants it without a content coding: the variant of
    /// a response that varies on `Accept-Encoding`, stored for callers that do not accept gzip. Deflating
    /// it would only make every hit inflate it again, so it is stored as it came.
    public var identityReadersOnly: Bool
    /// The store's `purgeCount` when the request that fetched this body was sent (`nil`: when the write
    /// begins). Purges after it that select the entry make it stale at its commit.
    public var purgesBefore: UInt64?

    /// Creates hints.
    /// - Parameters:
    ///   - contentType: the response's `Content-Type`.
    ///   - contentEncoding: the response's `Content-Encoding`.
    ///   - noTransform: whether the response forbids transformation.
    ///   - identityReadersOnly: whether only callers that want identity will read the body.
    public init(
        contentType: String? = nil, contentEncoding: String? = nil, noTransform: Bool = false,
        identityReadersOnly: Bool = false
    ) {
        self.contentType = contentType
        self.contentEncoding = contentEncoding
        self.noTransform = noTransform
        self.identityReadersOnly = identityReadersOnly
    }

    /// Reads the hints off response headers.
    /// - Parameters:
    ///   - headers: the response headers.
    ///   - cacheControl: their `Cache-Control` field, when the caller parsed it already.
    public init(headers: HTTPHeaders, cacheControl: CacheControl? = nil) {
        self.init(
            contentType: headers["Content-Type"], contentEncoding: headers["Content-Encoding"],
            noTransform: (cacheControl ?? CacheControl(headers: headers)).noTransform)
    }
}

/// A pull reader over one stored body. Thread-safe; call `next` from one consumer at a time.
public protocol CacheBodyReader: AnyObject, Sendable {
    /// How many bytes the reader produces in all (the gzip member's size for `.gzip`).
    var length: Int { get }

    /// The next piece of the body, never empty, or `nil` at the end.
    /// - Returns: bytes, at most one chunk's worth.
    /// - Throws: `.corruptEntryDeleted` when a chunk fails its checks (the entry is already gone;
    ///   bytes handed out before must be discarded, e.g. by aborting the connection), `.notFound`
    ///   when the entry was deleted while being read, or a storage error.
    func next() throws -> [UInt8]?

    /// The rest of the body in one buffer (for a body read whole, e.g. into the memory tier). A reader
    /// may copy each piece once, straight into it; the checks and errors are those of `next()`.
    func readAll() throws -> [UInt8]
}

extension CacheBodyReader {
    /// Gathers what `next()` gives.
    public func readAll() throws -> [UInt8] {
        try gatherPieces()
    }

    /// What `next()` gives until the end, in one buffer (the first piece is the buffer when it is all).
    public func gatherPieces() throws -> [UInt8] {
        guard var body = try next() else { return [] }
        if body.count < length {
            body.reserveCapacity(length)
            while let piece = try next() { body.append(contentsOf: piece) }
        }
        return body
    }
}

/// A streaming writer of one body. Thread-safe; bytes are appended in order by one producer.
public protocol CacheBodyWriter: AnyObject, Sendable {
    /// Appends the next bytes of the body. Memory stays bounded by about one chunk.
    /// - Parameter bytes: the bytes, in arrival order.
    /// - Throws: `.writerClosed` after `commit` or `abandon`, or a storage error (the write is then
    ///   abandoned).
    func append(_ bytes: [UInt8]) throws

    /// Finishes the body and makes the entry visible atomically, replacing any entry of the same key.
    /// - Parameter entry: the metadata; the store fills sizes, codec, CRC, chunk size and dates.
    /// - Returns: the entry as stored.
    /// - Throws: `.writerClosed` or a storage error; nothing becomes visible then.
    @discardableResult
    func commit(_ entry: StoredEntry) throws -> StoredEntry

    /// Drops the body written so far. Also done when a writer is released without commit.
    func abandon()

    /// Commits without blocking the caller: the same effect and errors as `commit(_:)`, told to
    /// `completion` on a thread of the store's choosing. A store may then commit several bodies in one
    /// transaction.
    /// - Parameters:
    ///   - entry: the metadata.
    ///   - completion: receives the entry as stored, or the error.
    func commit(_ entry: StoredEntry, completion: @escaping @Sendable (Result<StoredEntry, any Error>) -> Void)
}

extension CacheBodyWriter {
    /// Commits at once on the caller's thread.
    public func commit(_ entry: StoredEntry, completion: @escaping @Sendable (Result<StoredEntry, any Error>) -> Void) {
        completion(Result { try commit(entry) })
    }
}

/// A body writer whose bytes can be read back while it is still writing (a store that writes chunks
/// as they fill). A fetch in flight then keeps only the bytes past `readableBytes` in memory, and a
/// caller who joins it late reads the rest back from the store.
public protocol ReadableBodyWriter: CacheBodyWriter {
    /// How many of the body's first bytes `readWritten(at:)` can give back: whole chunks already
    /// written where a reader reaches them.
    var readableBytes: Int { get }

    /// Reads back bytes already written, before or after the commit, checked as a stored body's are.
    /// - Parameter offset: where to start, below `readableBytes`.
    /// - Returns: the body's bytes from `offset` to the end of the chunk holding it, never empty.
    /// - Throws: `.writerClosed` when the body was abandoned, deleted or replaced meanwhile (or the offset
    ///   is not readable), a storage error when a chunk fails its checks.
    func readWritten(at offset: Int) throws -> [UInt8]
}

extension CacheStore {
    /// A store that keeps no record of its keys in memory may hold any key.
    /// - Parameter primaryKey: `CacheKey.make(canonicalURL:)` of the URL.
    /// - Returns: `true`.
    public func mayHold(primaryKey: CacheKey) -> Bool { true }

    /// Two reads: the Vary names, then the entry when there are none.
    /// - Parameter primaryKey: `CacheKey.make(canonicalURL:)` of the URL.
    /// - Returns: the entry under the primary key, or the names the URL's responses vary on.
    /// - Throws: `CacheStoreError` when the store cannot be read.
    public func lookUpToServe(primaryKey: CacheKey) throws -> PrimaryLookup {
        if let names = try varyNames(forPrimaryKey: primaryKey) { return .varies(on: names) }
        return .uniform(try entryToServe(for: primaryKey))
    }

    /// A store whose usage figures cost nothing to read serves `entry(for:)`.
    /// - Parameter key: the primary or secondary key.
    /// - Returns: the metadata, or `nil` on a miss.
    /// - Throws: `CacheStoreError` when the store cannot be read.
    public func entryToServe(for key: CacheKey) throws -> StoredEntry? { try entry(for: key) }

    /// Deletes the entries a purge selects (`purge(_:soft:)` with `soft: false`).
    /// - Parameter scope: the purge.
    /// - Returns: how many entries went.
    /// - Throws: `CacheStoreError` when the store cannot be written.
    @discardableResult
    public func purge(_ scope: CachePurgeScope) throws -> Int { try purge(scope, soft: false) }

    /// A store that does not order purges against writes: 0.
    public var purgeCount: UInt64 { 0 }

    /// Counts one hit.
    /// - Parameters:
    ///   - key: the entry served.
    ///   - now: the clock's time.
    public func recordHit(_ key: CacheKey, at now: Date) { recordHits(key, count: 1, at: now) }
}

/// What a lookup by a URL's primary key finds (`CacheStore.lookUpToServe(primaryKey:)`).
public enum PrimaryLookup: Sendable {
    /// No varying response is stored for the URL: the entry under the primary key, if there is one.
    case uniform(StoredEntry?)
    /// The URL's stored responses vary on these request header names (lower-cased): the entry to serve,
    /// if any, is under the key of the request's variant (`CacheKey.variant`).
    case varies(on: [String])
}
