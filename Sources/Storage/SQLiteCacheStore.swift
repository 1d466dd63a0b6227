public import CacheCore
import Dispatch
public import FoundationEssentials
import HTTPCore
import Synchronization
import Zlib

/// The `CacheStore` of Larder, and its `FilterChainStore` and `CacheMaintenanceStore`: one SQLite file in
/// WAL mode, bodies in fixed-size chunks (deflated with a full flush per chunk when that pays), a size bound
/// kept by eviction in insertion order (`SQLiteEvictionHand`), and O(1) stats maintained in the same
/// transactions as the changes they count (by the insert code and by triggers on update and delete).
public final class SQLiteCacheStore: CacheStore, FilterChainStore, CacheMaintenanceStore {
    /// How a store is set up.
    public struct Configuration: Sendable {
        /// The database file; created when missing.
        public var path: String
        /// The size bound in bytes (stored bodies plus `entryOverhead` and the URL and headers of
        /// each entry), `nil` for none.
        public var maxSize: Int?
        /// The uncompressed chunk size for new bodies. 64 KiB by measurement (see Benchmarks/storage).
        public var chunkSize: Int
        /// A body is kept deflated only when that takes at most this fraction of its first chunk.
        public var compressionThreshold: Double
        /// zlib level, 1…9.
        public var deflateLevel: Int32
        /// The hit log's default size: 262 144 entries, about 12 MiB.
        public static let defaultHitLogCapacity = 1 << 18

        /// Entries whose hits are kept in memory before they are written in one batch (`SQLiteHitLog`).
        public var hitLogCapacity: Int
        /// The time source for commit dates and hits without a given time.
        public var clock: @Sendable () -> Date
        /// The default map: 64 GiB of address space, which costs no memory until pages of the file are read
        /// through it, and covers any store a machine of today keeps in its page cache.
        public static let defaultMemoryMapSize = 64 << 30

        /// Bytes of the database file, from its start, that connections read through one memory map shared
        /// by the process's connections and kept across commits (Sources/CSQLiteVFS/mapped_database.c;
        /// docs/ARCHITECTURE.md, "Connections share one lasting map of the store"); 0 for none, when every
        /// page is read with `pread`. A lookup in a store of a million entries reads about five pages that
        /// are in no page cache of SQLite's: mapped, it makes no system call for them. Pages beyond the
        /// length are read with `pread`. The trade: an I/O error on a mapped page, or another process
        /// shrinking the file, kills the process with SIGBUS where `pread` would fail one read.
        public var memoryMapSize: Int
        /// When the file is synced (`StoreSync`); `.checkpoint` unless set.
        public var sync: StoreSync = .checkpoint
        /// The machine's current boot, to tell the marker of an unsynced store left by a crash of the machine
        /// from one left by a process (`SQLiteUnsyncedMarker`); Linux's boot id unless a test sets another.
        public var boot: String? = SQLiteUnsyncedMarker.currentBoot()
        /// Whether lookups of keys never stored are answered from memory (`StoredKeyFilter`); on unless a
        /// test needs every lookup to reach SQLite.
        public var filtersKeys = true

        /// Creates a configuration.
        /// - Parameters:
        ///   - path: the database file.
        ///   - maxSize: the size bound, `nil` for none.
        ///   - chunkSize: uncompressed chunk size (1 KiB…16 MiB).
        ///   - compressionThreshold: the kept-deflated ratio bound.
        ///   - deflateLevel: zlib level.
        ///   - hitLogCapacity: entries with unwritten hits before they are written.
        ///   - memoryMapSize: bytes of the file read through the shared map, 0 for none.
        ///   - clock: the time source.
        public init(
            path: String, maxSize: Int? = nil, chunkSize: Int = 64 * 1024, compressionThreshold: Double = 0.9,
            deflateLevel: Int32 = 6, hitLogCapacity: Int = defaultHitLogCapacity,
            memoryMapSize: Int = defaultMemoryMapSize,
            clock: @escaping @Sendable () -> Date = Date.init
        ) {
            self.path = path
            self.maxSize = maxSize
            self.chunkSize = min(max(chunkSize, 1024), 16 << 20)
            self.compressionThreshold = compressionThreshold
            self.deflateLevel = deflateLevel
            self.hitLogCapacity = hitLogCapacity
            self.clock = clock
            self.memoryMapSize = memoryMapSize
        }
    }

    /// Bytes counted per entry on top of its body, URL and headers: an estimate of its row and index
    /// overhead, so that many tiny entries still count against the bound.
    public static let entryOverhead = 200

    /// The configuration in force.
    public let configuration: Configuration
    /// What opening the file found about a crash of the machine, `nil` when there was nothing to find.
    public let startFinding: StoreStartFinding?
    let database: SQLiteDatabase
    /// Hits not yet written to their rows.
    let hitLog: SQLiteHitLog
    /// Where a full hit log is written, off the threads that serve hits.
    let hitFlushes = DispatchQueue(label: "larder.storage.hits", qos: .utility)
    /// Bodies being written by live writers of this process; everything else pending is abandoned.
    let liveBodies = Mutex<Set<Int64>>([])
    /// The first chunk of the last body each thread looked up, for the body read that follows.
    let firstChunks = FirstChunkStash()
    /// Entries this process removed by eviction, for metrics.
    let evictions = Atomic<Int>(0)
    /// Entries this process removed by sweeps, for metrics.
    let sweeps = Atomic<Int>(0)
    /// Where finished bodies are committed, in groups under load.
    let commits = SQLiteCommitGroup()
    /// Recent purges, so that a body being written while one ran is committed stale if it matches.
    let purgeLog = SQLitePurgeLog()
    /// The `vary` table's rows read by lookups, forgotten when a transaction changes them.
    let varyMemo = SQLiteVaryMemo()
    /// Entries decoded by recent lookups (`SQLiteEntryMemo`).
    let entryMemo = SQLiteEntryMemo()
    /// The primary keys the store may hold (`mayHold(primaryKey:)`), and where its builds run.
    let keyFilter = StoredKeyFilter()
    /// The primary keys of the URLs that vary, whose names are in the `vary` table: a lookup of any other URL
    /// reads its entry under the primary key at once, without the statement that also looks for names
    /// (`lookUpPrimary`). Built and kept up to date as `keyFilter` is.
    let varyFilter = StoredKeyFilter()
    let keyFilterBuilds = DispatchQueue(label: "larder.storage.keys", qos: .utility)
    /// Purges run one at a time: each is several transactions (`purgeBatchSize` rows each).
    let purgeLock = Mutex(())
    /// Transactions run by purges, for `purgeTransactionCount`.
    let purgeTransactions = Atomic<Int>(0)
    /// The most rows one purge transaction changed, for `purgeLargestTransactionRows`.
    let purgeLargestTransaction = Atomic<Int>(0)
    /// Whether `entry_purged` may hold rows (purged entries not yet reclaimed): set under the writer lock
    /// before a purge's batch commits, cleared under it by the reclaimer once the table is empty. While it
    /// is set, the lookup also checks that table; most of the time it is not, and a lookup pays one load.
    let purgedRowsMayExist: Atomic<Bool>
    /// Where purged entries are deleted, one batch at a time, off the purge (`SQLiteCacheStore+Reclaim`).
    let reclaims = DispatchQueue(label: "larder.storage.reclaim", qos: .background)
    /// Purged entries the reclaimer deleted, for `reclaimedCount`.
    let reclaimed = Atomic<Int>(0)
    /// Reclaim transactions and the most entries one deleted, for the benchmark.
    let reclaimTransactions = Atomic<Int>(0)
    let reclaimLargestTransaction = Atomic<Int>(0)

    /// Opens (or creates) the store: migrates the schema and clears bodies abandoned by a crash.
    /// - Parameter configuration: the settings.
    /// - Throws: `.unsupportedSchema` for a database from a newer Larder, `.storageFailure` when the file
    ///   cannot be opened or migrated.
    public init(configuration: Configuration) throws {
        self.configuration = configuration
        hitLog = SQLiteHitLog(capacity: configuration.hitLogCapacity)
        var purgedRows = false
        let marker = SQLiteUnsyncedMarker(databasePath: configuration.path, boot: configuration.boot)
        let found = marker.find()
        do {
            // Before anything is written: an unsynced store's marker placed, a crashed one's file checked.
            startFinding = try Self.settleUnsyncedMarker(marker, found: found, configuration: configuration)
            database = try SQLiteDatabase(
                path: configuration.path, memoryMapSize: configuration.memoryMapSize,
                syncs: configuration.sync == .checkpoint
            ) { connection in
                try StorageSchema.migrate(connection)
                // No writer of this process exists yet: every pending body is left over from a crash.
                try connection.inTransaction {
                    try connection.run(
                        "DELETE FROM chunk WHERE (id >> \(StorageSchema.chunkIDShift)) IN (SELECT id FROM pending_body)"
                    )
                    try connection.run("DELETE FROM pending_body")
                    return .commit
                }
                // Purged entries a previous process left unreclaimed.
                purgedRows = try connection.queryFirst("SELECT 1 FROM entry_purged LIMIT 1") { _ in true } ?? false
            }
        } catch {
            // A marker this open placed does not outlive it: a file that cannot be opened (not a database, a
            // newer schema) is not one this process wrote, and must not be moved by a later start.
            if found == .absent, configuration.sync == .off { try? marker.syncStoreAndRemove() }
            if let error = error as? SQLiteSchemaTooNew {
                throw CacheStoreError.unsupportedSchema(found: error.found, supported: error.supported)
            }
            throw Self.storeError(error, operation: "open \(configuration.path)")
        }
        purgedRowsMayExist = Atomic(purgedRows)
        if purgedRows { scheduleReclaim() }
        scheduleKeyFilterBuild()
    }

    /// Opens a store with default settings.
    /// - Parameters:
    ///   - path: the database file.
    ///   - maxSize: the size bound.
    /// - Throws: as `init(configuration:)`.
    public convenience init(path: String, maxSize: Int? = nil) throws {
        try self.init(configuration: Configuration(path: path, maxSize: maxSize))
    }

    public func entry(for key: CacheKey) throws -> StoredEntry? {
        try lookUp(key, withUsage: true)
    }

    /// `entry(for:)` without the usage figures, which live in a table of their own (`entry_access`): the
    /// entry's `hitCount` is 0 and its `lastAccess` its creation. One statement, the one every request makes.
    public func entryToServe(for key: CacheKey) throws -> StoredEntry? {
        try lookUp(key, withUsage: false)
    }

    /// The entry under the primary key alone (`entryToServe(for:)`) when the vary filter says the URL
    /// certainly does not vary; otherwise one statement for the names and the primary key's entry when the
    /// Vary memo does not know the URL (`lookUpPrimary`), and when it does, the names from memory and the
    /// entry, if the URL does not vary, from `entryToServe(for:)`.
    public func lookUpToServe(primaryKey: CacheKey) throws -> PrimaryLookup {
        guard mayHold(primaryKey: primaryKey) else { return .uniform(nil) }
        guard mayVary(primaryKey: primaryKey) else { return .uniform(try lookUp(primaryKey, withUsage: false)) }
        // Set when the memo asked the table: the statement that read the names also read the entry.
        var entryRead: StoredEntry??
        let names = try guarded("lookup") {
            try varyMemo.names(for: primaryKey) {
                let arguments = lookUpArguments(primaryKey)
                let generation = entryMemo.currentGeneration
                let found = try database.read { connection in
                    try connection.queryFirst(Self.lookUpPrimary, arguments) { row -> ([String]?, StoredEntry?) in
                        if !row.isNull(30) { return (Self.decodeNames(row.text(30) ?? ""), nil) }
                        // Every entry column is NULL when no entry is stored under the key.
                        return (nil, row.isNull(0) ? nil : try servedEntry(row, generation: generation))
                    }
                }
                entryRead = .some(found?.1)
                return found?.0
            }
        }
        if let names { return .varies(on: names) }
        if let entryRead { return .uniform(entryRead) }
        return .uniform(try lookUp(primaryKey, withUsage: false))
    }

    /// The parameters of `lookUpEntry` and `lookUpPrimary`: the key's rowid, the key, and whether purged
    /// entries must be left out (they are from the moment the purge's batch commits; the flag is set before).
    private func lookUpArguments(_ key: CacheKey) -> [SQLiteValue] {
        let mayBePurged: Int64 = purgedRowsMayExist.load(ordering: .acquiring) ? 1 : 0
        return [.integer(Self.rowID(key)), .blob(key.bytes), .integer(mayBePurged)]
    }

    /// The entry in a row of `lookUpEntry` or `lookUpPrimary`, its first chunk kept for the body read and
    /// the entry remembered (`SQLiteEntryMemo`) under the generation read before the statement ran.
    private func servedEntry(_ row: SQLiteStatement, generation: UInt64) throws -> StoredEntry {
        let entry = try Self.entry(row)
        firstChunks.keep(Self.firstChunk(of: entry, row: row, crcColumn: 28), bodyID: entry.bodyID)
        entryMemo.keep(entry, rowID: row.int64(0), decodedIn: generation)
        return entry
    }

    /// The entry to serve for `key` when the memo remembers it and its row still holds the same body: one
    /// narrow statement (`lookUpKnownEntry`), which also reads the first chunk. `.none` when the memo does
    /// not know the key or the row holds another body (the full lookup follows); `.some(nil)` when no
    /// entry is stored under the key.
    private func rememberedEntry(_ key: CacheKey, arguments: [SQLiteValue], connection: SQLiteConnection) throws
        -> StoredEntry??
    {
        guard let known = entryMemo.entry(for: key, rowID: Self.rowID(key)) else { return .none }
        let row = try connection.queryFirst(Self.lookUpKnownEntry, arguments) { row -> Bool in
            guard row.int64(0) == known.bodyID else { return false }
            firstChunks.keep(Self.firstChunk(of: known, row: row, crcColumn: 1), bodyID: known.bodyID)
            return true
        }
        switch row {
        case nil: return .some(nil)
        case true?: return .some(known)
        case false?: return .none
        }
    }

    private func lookUp(_ key: CacheKey, withUsage: Bool) throws -> StoredEntry? {
        let arguments = lookUpArguments(key)
        let found = try guarded("lookup") {
            try database.read { connection -> StoredEntry? in
                if !withUsage, let remembered = try rememberedEntry(key, arguments: arguments, connection: connection) {
                    return remembered
                }
                let rowID = Self.rowID(key)
                let generation = entryMemo.currentGeneration
                let entry = try connection.queryFirst(Self.lookUpEntry, arguments) {
                    try servedEntry($0, generation: generation)
                }
                guard withUsage, var entry else { return entry }
                // A statement of its own, so a read of its own (an entry replaced in between lends its usage
                // figures, which only `/cache`'s metadata shows); one snapshot for both would cost a BEGIN and
                // a COMMIT.
                _ = try connection.queryFirst(Self.lookUpUsage, [.integer(rowID)]) { row in
                    entry.setUsage(
                        hitCount: row.int(0), lastAccess: Date(timeIntervalSince1970: row.double(1)),
                        created: entry.created)
                }
                return entry
            }
        }
        guard let entry = found else { return nil }
        return withUsage ? withUnwrittenHits(entry) : entry
    }

    public func varyNames(forPrimaryKey primaryKey: CacheKey) throws -> [String]? {
        guard mayVary(primaryKey: primaryKey) else { return nil }
        return try guarded("vary lookup") {
            try varyMemo.names(for: primaryKey) {
                try database.read {
                    try $0.queryFirst(Self.lookUpVaryNames, [.blob(primaryKey.bytes)]) {
                        Self.decodeNames($0.text(0) ?? "")
                    }
                }
            }
        }
    }

    public func openBody(of entry: StoredEntry, form: CacheBodyForm) throws -> any CacheBodyReader {
        switch form {
        case .gzip where entry.codec != .deflateChunked: throw CacheStoreError.formUnavailable
        case .range(let range) where range.lowerBound < 0 || range.upperBound > entry.originalSize:
            throw CacheStoreError.invalidRange(range, length: entry.originalSize)
        default: break
        }
        // The reader loads the first chunk now, which also finds an entry deleted or replaced since it
        // was looked up (its chunks are gone): `notFound` before any byte is promised to a caller.
        return try SQLiteBodyReader(store: self, entry: entry, form: form)
    }

    /// The first chunk in a lookup's row, CRC-checked; `nil` when there is none or it fails its check,
    /// which the body read then finds itself.
    /// - Parameter crcColumn: the column of the chunk's CRC-32; its bytes are in the next one.
    static func firstChunk(of entry: StoredEntry, row: SQLiteStatement, crcColumn: Int32) -> SQLiteBodyReader.Chunk? {
        guard entry.originalSize > 0, !row.isNull(crcColumn + 1) else { return nil }
        let recorded = UInt32(truncatingIfNeeded: row.int64(crcColumn))
        return row.withBlob(crcColumn + 1) { SQLiteBodyReader.Chunk(checking: $0, recorded: recorded) }
    }

    /// Whether the entry row still points at the body `entry` was read with (not deleted, not replaced).
    func entryStillHolds(_ entry: StoredEntry) throws -> Bool {
        try guarded("read chunk") {
            try database.read {
                try $0.queryFirst(
                    "SELECT 1 FROM entry WHERE id = ? AND key = ? AND body_id = ?",
                    [.integer(Self.rowID(entry.key)), .blob(entry.key.bytes), .integer(entry.bodyID)]
                ) { _ in true }
            }
        } == true
    }

    public var purgeCount: UInt64 { purgeLog.generation }

    public func beginWrite(hints: CacheBodyHints) throws -> any CacheBodyWriter {
        SQLiteBodyWriter(store: self, hints: hints)
    }

    @discardableResult
    public func updateMetadata(_ entry: StoredEntry) throws -> Bool {
        let headers = Self.encodeHeaders(entry.headers)
        // Once the update committed (or failed), no remembered entry is used: one may be this one's old form.
        defer { entryMemo.entriesChanged() }
        return try guarded("update metadata") {
            try database.write { connection in
                try connection.run(
                    """
                    UPDATE entry SET status = ?, reason = ?, headers = ?, media_type = ?, request_time = ?,
                        response_time = ?, date = ?, age_received = ?, freshness = ?, stale_allowance = ?,
                        sweep_after = ?, footprint = stored_size + length(CAST(url AS BLOB)) + ? + ?,
                        stale_since = CASE WHEN stale_since > ? THEN stale_since END
                    WHERE id = ? AND key = ? AND body_id = ? AND \(Self.notPurged)
                    """,
                    [
                        .int(entry.status.code), .text(entry.status.reasonPhrase), .text(headers),
                        .optionalText(entry.mediaType), .real(entry.requestTime.timeIntervalSince1970),
                        .real(entry.responseTime.timeIntervalSince1970),
                        entry.date.map { .real($0.timeIntervalSince1970) } ?? .null, .int(entry.ageReceived),
                        .real(entry.freshnessLifetime), .real(entry.staleAllowance),
                        .real(entry.sweepAfter.timeIntervalSince1970), .int(headers.utf8.count),
                        .int(Self.entryOverhead),
                        // A revalidation clears a soft purge, unless the purge came after it was sent.
                        .real(entry.requestTime.timeIntervalSince1970), .integer(Self.rowID(entry.key)),
                        .blob(entry.key.bytes), .integer(entry.bodyID),
                    ]) == 1
            }
        }
    }

    @discardableResult
    public func delete(_ key: CacheKey) throws -> Bool {
        try deleteRow(of: key, "DELETE FROM entry WHERE id = ? AND key = ?", [])
    }

    @discardableResult
    public func delete(_ entry: StoredEntry) throws -> Bool {
        // Only while it holds this body: the hits logged for a replacement are the replacement's.
        try deleteRow(
            of: entry.key, "DELETE FROM entry WHERE id = ? AND key = ? AND body_id = ?", [.integer(entry.bodyID)])
    }

    /// Runs a `DELETE` of the key's row (`sql` takes the row id, the key, then `extra`) and forgets the
    /// row's hits when it went, under the writer lock, as every row removal does. A purged entry's row is
    /// deleted too (reclaimed early), but it was no entry any more: `false`.
    private func deleteRow(of key: CacheKey, _ sql: String, _ extra: [SQLiteValue]) throws -> Bool {
        try guarded("delete") {
            try database.write {
                let rowID = Self.rowID(key)
                let purged =
                    try $0.queryFirst("SELECT 1 FROM entry_purged WHERE id = ?", [.integer(rowID)]) { _ in true }
                    ?? false
                let deleted = try $0.run(sql, [.integer(rowID), .blob(key.bytes)] + extra) > 0
                if deleted { hitLog.forget(rowID) }
                return deleted && !purged
            }
        }
    }

    public func stats() throws -> CacheStoreStats {
        try guarded("stats") {
            try database.read { connection in
                // Purged entries still in the file are no entries, but their bytes are still stored.
                try connection.queryFirst(
                    "SELECT entry_count - purged_count, total_bytes, purged_count, purged_bytes FROM stats WHERE id = 1"
                ) {
                    CacheStoreStats(
                        entryCount: $0.int(0), totalBytes: $0.int(1), maxSize: configuration.maxSize,
                        reclaimingEntries: $0.int(2), reclaimingBytes: $0.int(3))
                } ?? CacheStoreStats(entryCount: 0, totalBytes: 0, maxSize: configuration.maxSize)
            }
        }
    }

    /// Runs a storage operation, turning every failure into a `CacheStoreError`.
    func guarded<T>(_ operation: String, _ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw Self.storeError(error, operation: operation) }
    }

    /// Maps a failure to what upper layers act on: full disk apart, the rest as storage failures.
    static func storeError(_ error: any Error, operation: String) -> CacheStoreError {
        switch error {
        case let error as CacheStoreError: return error
        case let error as SQLiteError where error.primaryCode == 13:  // SQLITE_FULL
            return .storageFull(detail: error.description)
        default: return .storageFailure(operation: operation, detail: "\(error)")
        }
    }
}
