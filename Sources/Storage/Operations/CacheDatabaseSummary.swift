import CacheCore
public import FoundationEssentials

/// What a cache database holds, read from the file without a server: for `larder stats`.
///
/// Everything is read in one read transaction, so the figures agree with each other even while a
/// server writes (a WAL reader sees one snapshot: https://sqlite.org/wal.html#concurrency).
public struct CacheDatabaseSummary: Sendable, Equatable {
    /// One host's share of the cache.
    public struct HostShare: Sendable, Equatable {
        /// The origin host.
        public let host: String
        /// Its entries.
        public let entries: Int
        /// Bytes its entries count against the size bound.
        public let bytes: Int
    }

    /// Entries stored (not counting purged ones waiting to be reclaimed).
    public let entries: Int
    /// Bytes counted against the size bound (bodies as stored, URLs, headers and a per-entry overhead),
    /// including `reclaimingBytes`, which the file still holds.
    public let storedBytes: Int
    /// Entries a purge removed whose rows and bodies the server has not deleted yet (schema version 6:
    /// `entry_purged`); every other figure leaves them out.
    public let reclaimingEntries: Int
    /// The bytes of `reclaimingEntries`, counted in `storedBytes`.
    public let reclaimingBytes: Int
    /// Bytes of the bodies as the origins sent them (before compression).
    public let originalBodyBytes: Int
    /// Hits written to the entries still stored. A running server keeps hits in memory (`SQLiteHitLog`)
    /// until its log fills, the next sweep or shutdown, so read from a live file this lags by up to that.
    public let recordedHits: Int
    /// When the oldest entry still stored was written.
    public let oldest: Date?
    /// When the newest entry was written.
    public let newest: Date?
    /// Hosts with the most entries, most first.
    public let topHostsByEntries: [HostShare]
    /// Hosts with the most bytes, most first.
    public let topHostsByBytes: [HostShare]
    /// Size of the database file in bytes (page count × page size).
    public let fileBytes: Int

    /// Reads the summary of the database at `path`, opened read-only.
    /// - Parameters:
    ///   - path: the database file.
    ///   - topHosts: how many hosts each top list keeps.
    /// - Returns: the summary.
    /// - Throws: `CacheStoreError.storageFailure` when the file cannot be opened or is not a Larder database.
    public static func read(path: String, topHosts: Int = 5) throws -> CacheDatabaseSummary {
        do {
            let connection = try SQLiteConnection(path: path, readOnly: true)
            guard try connection.userVersion >= 1 else {
                throw SQLiteError(code: 26, message: "not a Larder cache database (schema version 0)")
            }
            let version = try connection.userVersion
            let reclaims = version >= 6
            try connection.execute("BEGIN")
            defer { try? connection.execute("COMMIT") }
            let stored = reclaims ? " WHERE " + SQLiteCacheStore.notPurged : ""
            let reclaiming =
                reclaims
                ? try connection.queryFirst("SELECT purged_count, purged_bytes FROM stats WHERE id = 1") {
                    (entries: $0.int(0), bytes: $0.int(1))
                } : nil
            // Hits are counted in `entry_access` from version 7 on, in the entry rows before.
            let (hits, from) =
                version >= 7
                ? ("access.hit_count", "entry LEFT JOIN entry_access AS access ON access.id = entry.id")
                : ("hit_count", "entry")
            let totals = try connection.queryFirst(
                "SELECT count(*), coalesce(sum(footprint), 0), coalesce(sum(original_size), 0), "
                    + "coalesce(sum(\(hits)), 0), min(created), max(created) FROM \(from)" + stored
            ) { row in
                (
                    row.int(0), row.int(1), row.int(2), row.int(3), row.isNull(4) ? nil : row.double(4),
                    row.isNull(5) ? nil : row.double(5)
                )
            }
            func hosts(orderedBy order: String) throws -> [HostShare] {
                try connection.query(
                    "SELECT host, count(*) AS n, sum(footprint) AS b FROM entry\(stored) GROUP BY host "
                        + "ORDER BY \(order) DESC, host LIMIT ?", [.int(topHosts)]
                ) { HostShare(host: $0.text(0) ?? "", entries: $0.int(1), bytes: $0.int(2)) }
            }
            let pageCount = try connection.queryFirst("PRAGMA page_count") { $0.int(0) } ?? 0
            let pageSize = try connection.queryFirst("PRAGMA page_size") { $0.int(0) } ?? 0
            return CacheDatabaseSummary(
                entries: totals?.0 ?? 0, storedBytes: (totals?.1 ?? 0) + (reclaiming?.bytes ?? 0),
                reclaimingEntries: reclaiming?.entries ?? 0, reclaimingBytes: reclaiming?.bytes ?? 0,
                originalBodyBytes: totals?.2 ?? 0,
                recordedHits: totals?.3 ?? 0, oldest: totals?.4.map(Date.init(timeIntervalSince1970:)),
                newest: totals?.5.map(Date.init(timeIntervalSince1970:)), topHostsByEntries: try hosts(orderedBy: "n"),
                topHostsByBytes: try hosts(orderedBy: "b"), fileBytes: pageCount * pageSize)
        } catch let error as CacheStoreError {
            throw error
        } catch {
            throw CacheStoreError.storageFailure(operation: "read \(path)", detail: "\(error)")
        }
    }
}
