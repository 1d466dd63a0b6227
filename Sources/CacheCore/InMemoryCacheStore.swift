public import FoundationEssentials
import Synchronization
import Zlib

/// A `CacheStore` in memory, for tests of the layers above storage. Bodies are kept as identity bytes
/// (so the gzip form is unavailable); size bound, LRU, sweep, listing and purges behave as in the
/// SQLite store. Like it, also the `FilterChainStore` and the `CacheMaintenanceStore`.
public final class InMemoryCacheStore: CacheStore {
    /// Bytes counted per entry on top of its body (the SQLite store estimates its row overhead alike).
    public static let entryOverhead = 256

    struct Record {
        var entry: StoredEntry
        var body: [UInt8]
        var sequence: Int64
    }

    struct State {
        var records: [CacheKey: Record] = [:]
        var vary: [CacheKey: [String]] = [:]
        var filters = FilterChainRecord(version: 0, filters: [])
        var nextSequence: Int64 = 1
        var totalBytes = 0
    }

    let state = Mutex(State())
    /// The size bound in bytes, `nil` for none.
    public let maxSize: Int?
    /// The uncompressed chunk size readers hand out.
    public let chunkSize: Int
    private let clock: @Sendable () -> Date

    /// Creates an empty store.
    /// - Parameters:
    ///   - maxSize: size bound (bodies plus `entryOverhead` each), `nil` for none.
    ///   - chunkSize: the size of the pieces readers produce.
    ///   - clock: the time source for commits.
    public init(maxSize: Int? = nil, chunkSize: Int = 64 * 1024, clock: @escaping @Sendable () -> Date = Date.init) {
        self.maxSize = maxSize
        self.chunkSize = chunkSize
        self.clock = clock
    }

    public func entry(for key: CacheKey) throws -> StoredEntry? {
        state.withLock { $0.records[key]?.entry }
    }

    public func varyNames(forPrimaryKey primaryKey: CacheKey) throws -> [String]? {
        state.withLock { $0.vary[primaryKey] }
    }

    public func openBody(of entry: StoredEntry, form: CacheBodyForm) throws -> any CacheBodyReader {
        let body = try state.withLock { state -> [UInt8] in
            guard let record = state.records[entry.key], record.entry.bodyID == entry.bodyID else {
                throw CacheStoreError.notFound(entry.key)
            }
            return record.body
        }
        switch form {
        case .identity: return InMemoryBodyReader(bytes: body[...], pieceSize: chunkSize)
        case .gzip: throw CacheStoreError.formUnavailable
        case .range(let range):
            guard range.lowerBound >= 0, range.upperBound <= body.count else {
                throw CacheStoreError.invalidRange(range, length: body.count)
            }
            return InMemoryBodyReader(bytes: body[range], pieceSize: chunkSize)
        }
    }

    public func beginWrite(hints: CacheBodyHints) throws -> any CacheBodyWriter {
        InMemoryBodyWriter(store: self)
    }

    func commit(_ entry: StoredEntry, body: [UInt8]) -> StoredEntry {
        var stored = entry
        let facts = StoredBodyFacts(
            originalSize: body.count, storedSize: body.count, codec: .identity, crc32: CRC32.checksum(body),
            chunkSize: chunkSize)
        let now = clock()
        return state.withLock { state in
            let sequence = state.nextSequence
            state.nextSequence += 1
            stored.setStoredBody(facts, bodyID: sequence, now: now)
            remove(entry.key, from: &state)
            state.records[entry.key] = Record(entry: stored, body: body, sequence: sequence)
            state.totalBytes += body.count + Self.entryOverhead
            if stored.varyNames.isEmpty {
                state.vary[stored.primaryKey] = nil
            } else {
                state.vary[stored.primaryKey] = stored.varyNames
            }
            evict(&state)
            return stored
        }
    }

    @discardableResult
    public func updateMetadata(_ entry: StoredEntry) throws -> Bool {
        state.withLock { state in
            guard var record = state.records[entry.key], record.entry.bodyID == entry.bodyID else { return false }
            var updated = entry
            // A revalidation clears a soft purge, unless the purge came after the revalidation was sent.
            if let since = record.entry.staleSince, since > entry.requestTime {
                updated.staleSince = since
            } else {
                updated.staleSince = nil
            }
            updated.setStoredBody(
                StoredBodyFacts(
                    originalSize: record.entry.originalSize, storedSize: record.entry.storedSize,
                    codec: record.entry.codec, crc32: record.entry.crc32, chunkSize: record.entry.chunkSize),
                bodyID: record.entry.bodyID, now: record.entry.created)
            updated.setUsage(
                hitCount: record.entry.hitCount, lastAccess: record.entry.lastAccess, created: record.entry.created)
            record.entry = updated
            state.records[entry.key] = record
            return true
        }
    }

    public func recordHits(_ key: CacheKey, count: Int, at now: Date) {
        state.withLock { state in
            guard var record = state.records[key] else { return }
            record.entry.setUsage(
                hitCount: record.entry.hitCount + count, lastAccess: max(now, record.entry.lastAccess),
                created: record.entry.created)
            state.records[key] = record
        }
    }

    @discardableResult
    public func delete(_ key: CacheKey) throws -> Bool {
        state.withLock { remove(key, from: &$0) }
    }

    @discardableResult
    public func delete(_ entry: StoredEntry) throws -> Bool {
        state.withLock { state in
            guard state.records[entry.key]?.entry.bodyID == entry.bodyID else { return false }
            return remove(entry.key, from: &state)
        }
    }

    @discardableResult
    public func purge(_ scope: CachePurgeScope, soft: Bool) throws -> Int {
        let now = clock()
        return state.withLock { state in
            let doomed = state.records.values.filter {
                scope.matches($0.entry) && !(soft && $0.entry.staleSince != nil)
            }
            .map(\.entry.key)
            for key in doomed {
                if soft {
                    state.records[key]!.entry.staleSince = now
                } else {
                    remove(key, from: &state)
                }
            }
            return doomed.count
        }
    }

    public func previewPurge(_ scope: CachePurgeScope, soft: Bool, limit: Int) throws -> CachePurgePreview {
        state.withLock { state in
            let matched = state.records.values.filter {
                scope.matches($0.entry) && !(soft && $0.entry.staleSince != nil)
            }
            .sorted { $0.sequence > $1.sequence }
            return CachePurgePreview(count: matched.count, keys: matched.prefix(max(0, limit)).map(\.entry.key))
        }
    }

    public func list(_ query: CacheEntryQuery) throws -> CacheEntryPage {
        let below = try query.cursor.map(CacheEntryQuery.position(of:)) ?? Int64.max
        return state.withLock { state in
            let page = state.records.values
                .filter { $0.sequence < below && query.matches($0.entry) }
                .sorted { $0.sequence > $1.sequence }
                .prefix(query.limit + 1)
            let entries = page.prefix(query.limit)
            let next = page.count > query.limit ? entries.last.map { CacheEntryQuery.cursor(after: $0.sequence) } : nil
            return CacheEntryPage(entries: entries.map(\.entry), nextCursor: next)
        }
    }

    @discardableResult
    private func remove(_ key: CacheKey, from state: inout State) -> Bool {
        guard let record = state.records.removeValue(forKey: key) else { return false }
        state.totalBytes -= record.body.count + Self.entryOverhead
        return true
    }

    private func evict(_ state: inout State) {
        guard let maxSize, state.totalBytes > maxSize else { return }
        let byAge = state.records.values.sorted {
            ($0.entry.lastAccess, $0.sequence) < ($1.entry.lastAccess, $1.sequence)
        }
        for record in byAge where state.totalBytes > maxSize {
            remove(record.entry.key, from: &state)
        }
    }
}

extension InMemoryCacheStore: CacheMaintenanceStore {
    public func stats() throws -> CacheStoreStats {
        state.withLock { CacheStoreStats(entryCount: $0.records.count, totalBytes: $0.totalBytes, maxSize: maxSize) }
    }

    @discardableResult
    public func sweep(now: Date) throws -> Int {
        state.withLock { state in
            let doomed = state.records.values.filter { $0.entry.sweepAfter < now }.map(\.entry.key)
            for key in doomed { remove(key, from: &state) }
            return doomed.count
        }
    }
}

extension InMemoryCacheStore: FilterChainStore {
    public func loadFilterChain() throws -> FilterChainRecord {
        state.withLock { $0.filters }
    }

    @discardableResult
    public func saveFilterChain(_ filters: [FilterRecord], expectedVersion: Int?) throws -> FilterChainRecord {
        try FilterChainRecord.validate(filters)
        return try state.withLock { state in
            if let expectedVersion, expectedVersion != state.filters.version {
                throw CacheStoreError.versionConflict(current: state.filters.version)
            }
            state.filters = FilterChainRecord(version: state.filters.version + 1, filters: filters)
            return state.filters
        }
    }
}

/// Hands out a byte slice in pieces.
final class InMemoryBodyReader: CacheBodyReader {
    private let remaining: Mutex<ArraySlice<UInt8>>
    private let pieceSize: Int
    let length: Int

    init(bytes: ArraySlice<UInt8>, pieceSize: Int) {
        remaining = Mutex(bytes)
        self.pieceSize = pieceSize
        length = bytes.count
    }

    func next() throws -> [UInt8]? {
        remaining.withLock { rest in
            guard !rest.isEmpty else { return nil }
            let piece = Array(rest.prefix(pieceSize))
            rest = rest.dropFirst(piece.count)
            return piece
        }
    }
}

/// Gathers a body in memory until commit.
final class InMemoryBodyWriter: CacheBodyWriter {
    private let store: InMemoryCacheStore
    private let body = Mutex<[UInt8]?>([])

    init(store: InMemoryCacheStore) { self.store = store }

    func append(_ bytes: [UInt8]) throws {
        try body.withLock { body in
            guard body != nil else { throw CacheStoreError.writerClosed }
            body!.append(contentsOf: bytes)
        }
    }

    func commit(_ entry: StoredEntry) throws -> StoredEntry {
        let bytes = try body.withLock { body -> [UInt8] in
            guard let bytes = body else { throw CacheStoreError.writerClosed }
            body = nil
            return bytes
        }
        return store.commit(entry, body: bytes)
    }

    func abandon() { body.withLock { $0 = nil } }
}
