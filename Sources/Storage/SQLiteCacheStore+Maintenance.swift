public import CacheCore
import Dispatch
public import FoundationEssentials
import Synchronization

extension SQLiteCacheStore {
    /// Gathers the hits in memory (`SQLiteHitLog`); a full log is written on `hitFlushes`, so serving a
    /// hit costs no write.
    public func recordHits(_ key: CacheKey, count: Int, at now: Date) {
        guard hitLog.record(Self.rowID(key), count: count, at: now.timeIntervalSince1970) else { return }
        hitFlushes.async { [weak self] in try? self?.writeHitLog() }
    }

    /// Writes every hit the hit log holds, and returns once they are written: on `hitFlushes`, after a
    /// flush the full log started, so that nothing taken by that one is still unwritten when this returns
    /// (shutdown and `checkpoint` rely on it).
    /// - Throws: `CacheStoreError` when the store cannot be written (the hits of the failed batch are then
    ///   dropped: they are statistics and LRU hints, not data).
    public func flushHits() throws {
        try hitFlushes.sync { try writeHitLog() }
    }

    /// Writes the hit log in rowid order, `hitBatch` rows a transaction, each batch taken from the log
    /// inside its transaction; between batches the commits waiting for the writer get it for as long as
    /// the batch held it (`SQLiteDatabase.yieldTurn`, as a purge's batches do).
    private func writeHitLog() throws {
        defer { hitLog.flushEnded() }
        let rows = hitLog.rowsInOrder()
        let clock = ContinuousClock()
        var took = Duration.zero
        for start in stride(from: 0, to: rows.count, by: Self.hitBatch) {
            if start > 0 { database.yieldTurn(took) }
            let batch = rows[start..<min(start + Self.hitBatch, rows.count)]
            let began = clock.now
            defer { took = clock.now - began }
            try guarded("record hits") {
                try database.writeBatch { connection in
                    try connection.inTransaction {
                        for row in hitLog.take(batch) {
                            try Self.writeHits(row.hits, row: row.rowID, connection: connection)
                        }
                        return .commit
                    }
                }
            }
        }
    }

    /// Rows of hits one transaction of `flushHits` writes.
    static let hitBatch = 4096

    /// The usage row of an entry still stored, made at its first hit (`insert` writes none). The `WHERE`
    /// keeps a hit of an entry deleted since from leaving a row without an entry (it also lets SQLite
    /// parse the `ON CONFLICT` after a `SELECT`: https://sqlite.org/lang_upsert.html, "Parsing Ambiguity").
    private static let addHits = SQLiteQuery(
        """
        INSERT INTO entry_access (id, hit_count, last_access)
        SELECT ?1, ?2, ?3 WHERE EXISTS (SELECT 1 FROM entry WHERE id = ?1)
        ON CONFLICT (id) DO UPDATE SET hit_count = hit_count + excluded.hit_count,
            last_access = max(last_access, excluded.last_access)
        """)

    /// Adds hits to an entry's usage row (`entry_access`), made by the first, and moves it up the LRU order.
    private static func writeHits(_ hits: SQLiteHitLog.Hits, row: Int64, connection: SQLiteConnection) throws {
        _ = try connection.run(addHits, [.integer(row), .int(hits.count), .real(hits.last)])
    }

    /// The entry with the hits the hit log holds for it added.
    func withUnwrittenHits(_ entry: StoredEntry) -> StoredEntry {
        guard let hits = hitLog.pending(Self.rowID(entry.key)) else { return entry }
        var entry = entry
        entry.setUsage(
            hitCount: entry.hitCount + hits.count,
            lastAccess: max(entry.lastAccess, Date(timeIntervalSince1970: hits.last)), created: entry.created)
        return entry
    }

    @discardableResult
    public func sweep(now: Date) throws -> Int {
        try flushHits()
        let swept = try guarded("sweep") {
            try database.write { connection in
                // Read under the writer lock, under which writers register their bodies.
                let live = liveBodies.withLock { $0 }
                var swept = 0
                try connection.inTransaction {
                    // Purged entries it deletes on the way were no entries any more: not counted as swept.
                    let purged = "SELECT purged_count FROM stats WHERE id = 1"
                    let purgedBefore = try connection.queryFirst(purged) { $0.int(0) } ?? 0
                    swept = try connection.run(
                        "DELETE FROM entry WHERE sweep_after < ?", [.real(now.timeIntervalSince1970)])
                    swept -= purgedBefore - (try connection.queryFirst(purged) { $0.int(0) } ?? 0)
                    // Pending bodies no live writer owns: a writer that was dropped without cleanup.
                    let orphans = try connection.query("SELECT id FROM pending_body") { $0.int64(0) }.filter {
                        !live.contains($0)
                    }
                    for body in orphans { try Self.deleteBody(body, pending: true, connection: connection) }
                    return .commit
                }
                return swept
            }
        }
        sweeps.add(swept, ordering: .relaxed)
        // A reclaim that failed (or a purge that failed after it recorded a row) is tried again here.
        if purgedRowsMayExist.load(ordering: .relaxed) { scheduleReclaim() }
        return swept
    }

    /// Entries removed by LRU eviction to keep within `maxSize` since the store was opened.
    public var evictedCount: Int { evictions.load(ordering: .relaxed) }

    /// Entries removed by `sweep(now:)` since the store was opened.
    public var sweptCount: Int { sweeps.load(ordering: .relaxed) }

    /// Deletes least recently used entries until the total is within `maxSize`. Runs on the writer
    /// right after a commit.
    ///
    /// The order is sampled, as Redis's approximated LRU: each round reads `evictionSample` entries with
    /// their last uses (`lastUses`) from a random rowid on (rowids are key hashes, so that is a uniform
    /// sample of the entries) and removes the least recently used `evictionsPerSample` of them. In a store
    /// of at most `evictionSample` entries the sample is every entry, so the order is exact; in a larger one
    /// an evicted entry is among the oldest few per cent (the 16th oldest of 256 lies at the 6th percentile
    /// on average). Why not an index on the last access: every hit written moves the entry in it, and a
    /// flush of hits spread over a large store changed nearly every page of that index in each of its
    /// transactions (docs/ARCHITECTURE.md).
    func evictIfNeeded(_ connection: SQLiteConnection) throws {
        guard let maxSize = configuration.maxSize else { return }
        var total = try connection.queryFirst("SELECT total_bytes FROM stats WHERE id = 1") { $0.int(0) } ?? 0
        guard total > maxSize else { return }
        var evicted = 0
        try connection.inTransaction {
            while total > maxSize {
                // Purged entries not yet reclaimed go first: their bytes are counted, and nobody reads them.
                // They are not counted as evictions (the purge removed them).
                let purged =
                    purgedRowsMayExist.load(ordering: .relaxed)
                    ? try connection.query(
                        "SELECT id FROM entry WHERE id IN (SELECT id FROM entry_purged ORDER BY id LIMIT 64)"
                    ) { $0.int64(0) } : []
                for victim in purged where total > maxSize {
                    total -= try connection.queryFirst(Self.evict, [.integer(victim)]) { $0.int(0) } ?? 0
                }
                if !purged.isEmpty { continue }
                let candidates = try Self.leastRecentlyUsedOfASample(connection)
                if candidates.isEmpty { break }
                // A candidate the hit log has seen used since its row was written is moved up the LRU
                // order instead (its hits written now), and the next sample looks again. Only the
                // candidates looked at are taken from the log.
                for victim in candidates where total > maxSize {
                    if let used = hitLog.take(victim) {
                        try Self.writeHits(used, row: victim, connection: connection)
                    } else if let footprint = try connection.queryFirst(
                        Self.evict, [.integer(victim)], row: { $0.int(0) })
                    {
                        total -= footprint
                        evicted += 1
                    }
                }
            }
            return .commit
        }
        // Counted once the transaction committed: a rolled-back eviction removed nothing.
        evictions.add(evicted, ordering: .relaxed)
    }

    /// Usage rows one eviction round reads.
    static let evictionSample = 256
    /// Entries one eviction round may remove: the least recently used of its sample.
    static let evictionsPerSample = 16

    /// The rowids of the `evictionsPerSample` least recently used entries among `evictionSample` entries
    /// read from a random rowid on (wrapping around to the lowest), oldest first.
    private static func leastRecentlyUsedOfASample(_ connection: SQLiteConnection) throws -> [Int64] {
        let start = Int64.random(in: .min ... .max)
        var sample = try lastUses(connection, in: .from(start), limit: evictionSample)
        if sample.count < evictionSample {
            sample += try lastUses(connection, in: .below(start), limit: evictionSample - sample.count)
        }
        return sample.sorted { ($0.last, $0.id) < ($1.last, $1.id) }.prefix(evictionsPerSample).map(\.id)
    }

    /// Where a sample of `lastUses` is read: from a rowid up, or below one from the lowest.
    private enum SampleRange {
        case from(Int64)
        case below(Int64)
    }

    /// Up to `limit` entries in rowid order within `range`, each with its last use: its usage row's when it
    /// has one, its creation when it was never hit. Two scans in rowid order merged here, the entries' and
    /// then the usage rows' over the same rowids: a join would look each usage row up on its own.
    private static func lastUses(_ connection: SQLiteConnection, in range: SampleRange, limit: Int) throws -> [(
        id: Int64, last: Double
    )] {
        var rows: [(id: Int64, last: Double)] = []
        let (entries, bound): (SQLiteQuery, Int64) =
            switch range {
            case .from(let start): (entriesFrom, start)
            case .below(let end): (entriesBelow, end)
            }
        try connection.forEachRow(entries, [.integer(bound), .int(limit)]) { row in
            rows.append((row.int64(0), row.double(1)))
            return true
        }
        guard let first = rows.first?.id, let last = rows.last?.id else { return rows }
        var index = 0
        try connection.forEachRow(usageBetween, [.integer(first), .integer(last)]) { row in
            let id = row.int64(0)
            while index < rows.count && rows[index].id < id { index += 1 }
            if index < rows.count && rows[index].id == id { rows[index].last = row.double(1) }
            return index < rows.count
        }
        return rows
    }

    private static let entriesFrom = SQLiteQuery("SELECT id, created FROM entry WHERE id >= ? ORDER BY id LIMIT ?")
    private static let entriesBelow = SQLiteQuery("SELECT id, created FROM entry WHERE id < ? ORDER BY id LIMIT ?")
    private static let usageBetween = SQLiteQuery(
        "SELECT id, last_access FROM entry_access WHERE id BETWEEN ? AND ? ORDER BY id")
    /// Removes an entry (the delete trigger takes its body, usage row, purge record and counts) and says its
    /// footprint.
    private static let evict = SQLiteQuery("DELETE FROM entry WHERE id = ? RETURNING footprint")

    /// Deletes an entry whose body failed its checks, unless it was replaced meanwhile.
    func deleteCorrupt(_ entry: StoredEntry) {
        _ = try? delete(entry)
    }

    /// Deletes a pending body that will never be committed (an abandoned or failed write) and forgets it
    /// as live. If this fails, the pending row stays and the next sweep or start-up removes it.
    func discardPendingBody(_ body: Int64) {
        try? database.write { connection in
            try connection.inTransaction {
                try Self.deleteBody(body, pending: true, connection: connection)
                return .commit
            }
        }
        liveBodies.withLock { _ = $0.remove(body) }
    }

    /// Deletes a body's chunks (and its pending row).
    static func deleteBody(_ body: Int64, pending: Bool, connection: SQLiteConnection) throws {
        let first = body << StorageSchema.chunkIDShift
        try connection.run(
            "DELETE FROM chunk WHERE id BETWEEN ? AND ?",
            [.integer(first), .integer(first + StorageSchema.maxChunksPerBody - 1)])
        if pending { try connection.run("DELETE FROM pending_body WHERE id = ?", [.integer(body)]) }
    }
}

extension SQLiteCacheStore {
    /// Writes hits, copies the WAL into the database file and truncates the WAL
    /// (https://sqlite.org/pragma.html#pragma_wal_checkpoint). For shutdown and for measuring the file.
    /// - Parameter waiting: whether to wait, up to the busy timeout, for readers and writers of other
    ///   processes (a backup, `larder stats`); without waiting the WAL is left as it is when one is busy.
    /// - Throws: `CacheStoreError` when the store cannot be written.
    public func checkpoint(waiting: Bool = true) throws {
        try flushHits()
        // The background checkpoint under way, if any, ends first: it would hold the checkpoint lock.
        database.checkpointer.drain()
        try guarded("checkpoint") {
            try database.write { connection in
                let timeout = try connection.queryFirst("PRAGMA busy_timeout") { $0.int(0) } ?? 0
                if !waiting { try connection.execute("PRAGMA busy_timeout = 0") }
                defer { if !waiting { try? connection.execute("PRAGMA busy_timeout = \(timeout)") } }
                try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            }
        }
    }
}
