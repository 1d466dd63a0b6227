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
    ///   dropped: they are statistics and eviction hints, not data).
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

    /// Adds hits to an entry's usage row (`entry_access`), made by the first; eviction reads its last use.
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

    /// Entries removed by eviction to keep within `maxSize` since the store was opened.
    public var evictedCount: Int { evictions.load(ordering: .relaxed) }

    /// Entries removed by `sweep(now:)` since the store was opened.
    public var sweptCount: Int { sweeps.load(ordering: .relaxed) }

    /// Transactions of stored responses since the store was opened (`SQLiteCommitGroup`): each writes the
    /// responses that finished while the one before it ran.
    public var commitGroupCount: Int { commits.groups.load(ordering: .relaxed) }

    /// Responses those transactions wrote (a group that failed is written again one by one and counted
    /// once): divided by `commitGroupCount`, the mean group.
    public var commitGroupEntryCount: Int { commits.bodies.load(ordering: .relaxed) }

    /// Evicts entries until the store is within `maxSize`, inside the caller's transaction (a commit
    /// group's, after its entries: one commit writes both; when eviction fails, the group commits again
    /// without it, `SQLiteCommitGroup.commit`). Purged entries not yet reclaimed go first, then live ones
    /// where the eviction hand takes them (`SQLiteEvictionHand`: insertion order, sparing what was used
    /// since the hand's previous lap). Why not the least recently used by an index on the last access:
    /// every hit written moves the entry in it, and a flush of hits spread over a large store changed nearly
    /// every page of that index in each of its transactions (docs/ARCHITECTURE.md).
    /// - Parameter connection: the writer, in a transaction.
    /// - Returns: the entries evicted, for the caller to count once its transaction committed.
    func evictIfNeeded(inTransactionOf connection: SQLiteConnection) throws -> Int {
        guard let maxSize = configuration.maxSize else { return 0 }
        var total = try connection.queryFirst("SELECT total_bytes FROM stats WHERE id = 1") { $0.int(0) } ?? 0
        guard total > maxSize else { return 0 }
        var evicted = 0
        var hand = try Self.readHand(connection)
        var spared = 0
        while total > maxSize && spared < Self.evictionSpareLimit {
            // Purged entries not yet reclaimed go first: their bytes are counted, and nobody reads them.
            // They are not counted as evictions (the purge removed them).
            let purged =
                purgedRowsMayExist.load(ordering: .relaxed)
                ? try connection.query(
                    "SELECT id, footprint FROM entry WHERE id IN (SELECT id FROM entry_purged ORDER BY id LIMIT 64)"
                ) { (id: $0.int64(0), footprint: $0.int(1)) } : []
            for victim in purged where total > maxSize {
                if try connection.run(Self.evict, [.integer(victim.id)]) == 1 { total -= victim.footprint }
            }
            if !purged.isEmpty { continue }
            guard let step = try evictAtTheHand(&hand, needed: total - maxSize, connection: connection)
            else { break }
            total -= step.freed
            evicted += step.taken
            spared += step.spared
        }
        _ = try connection.run(
            Self.writeHand,
            [
                .integer(hand.position), .integer(hand.lapEnd), .real(hand.sparedIfUsedSince),
                .real(hand.lapStartedAt), .int(hand.lap.rawValue), .int(hand.previousLapSparedAll ? 1 : 0),
            ])
        return evicted
    }

    /// Entries the hand looks at per statement.
    static let evictionStep = 32
    /// The most entries one eviction spares before it stops, over the bound or not: a lap that spares
    /// nearly everything (the first after a migration, or a store whose every entry is in use) is walked a
    /// few thousand entries per commit instead of in one long transaction that holds up every commit. The
    /// store is then above its bound by the entries committed meanwhile, until the hand gets to entries it
    /// takes.
    static let evictionSpareLimit = 8192

    /// Moves the hand over up to `evictionStep` entries of its lap, evicting those it takes until `needed`
    /// bytes are freed; at the lap's end it starts the next lap.
    /// - Returns: the entries evicted, the bytes freed and the entries spared; `nil` when the store holds no
    ///   entry.
    private func evictAtTheHand(_ hand: inout SQLiteEvictionHand, needed: Int, connection: SQLiteConnection)
        throws -> (taken: Int, freed: Int, spared: Int)?
    {
        var candidates: [(id: Int64, seq: Int64, footprint: Int, lastAccess: Double?)] = []
        try connection.forEachRow(
            Self.entriesAfterTheHand, [.integer(hand.position), .integer(hand.lapEnd), .int(Self.evictionStep)]
        ) { row in
            candidates.append((row.int64(0), row.int64(1), row.int(2), row.isNull(3) ? nil : row.double(3)))
            return true
        }
        guard !candidates.isEmpty else {
            let newest = try connection.queryFirst(Self.newestSeq, []) { $0.int64(0) } ?? 0
            // An empty lap over an empty store would only start another.
            if newest == 0 { return nil }
            hand.wrap(at: configuration.clock().timeIntervalSince1970, newest: newest)
            return (0, 0, 0)
        }
        var taken = 0
        var freed = 0
        var spared = 0
        for candidate in candidates where freed < needed {
            // Hits not yet written count as uses; they stay in the log.
            let lastUse = [candidate.lastAccess, hitLog.pending(candidate.id)?.last].compactMap { $0 }.max()
            guard hand.takes(seq: candidate.seq, lastUse: lastUse) else {
                spared += 1
                continue
            }
            if try connection.run(Self.evict, [.integer(candidate.id)]) == 1 {
                // Hits older than the lap's rule may still be in the log: a later entry in this row must
                // not inherit them.
                hitLog.forget(candidate.id)
                freed += candidate.footprint
                taken += 1
            }
        }
        return (taken, freed, spared)
    }

    /// The hand as the last eviction left it.
    static func readHand(_ connection: SQLiteConnection) throws -> SQLiteEvictionHand {
        try connection.queryFirst(Self.readHandRow, []) { row in
            SQLiteEvictionHand(
                position: row.int64(0), lapEnd: row.int64(1), sparedIfUsedSince: row.double(2),
                lapStartedAt: row.double(3), lap: SQLiteEvictionHand.Lap(rawValue: row.int(4)) ?? .passedNone,
                previousLapSparedAll: row.int(5) != 0)
        }
            ?? SQLiteEvictionHand(
                position: 0, lapEnd: 0, sparedIfUsedSince: 0, lapStartedAt: 0, lap: .passedNone,
                previousLapSparedAll: false)
    }

    private static let readHandRow = SQLiteQuery(
        "SELECT position, lap_end, spared_since, lap_started, lap, previous_lap_spared_all FROM eviction_hand WHERE id = 1"
    )
    private static let writeHand = SQLiteQuery(
        """
        UPDATE eviction_hand SET position = ?, lap_end = ?, spared_since = ?, lap_started = ?, lap = ?,
            previous_lap_spared_all = ?
        WHERE id = 1
        """)
    private static let newestSeq = SQLiteQuery("SELECT coalesce(max(seq), 0) FROM entry")
    /// The entries of the lap after the hand, in insertion order, with their footprints and last written
    /// use: `entry_seq` finds them in order, the footprint is in the row the delete reads anyway, and the
    /// usage row is one rowid lookup. A usage row without hits (the migration to version 7 gave every entry
    /// one) is no use.
    private static let entriesAfterTheHand = SQLiteQuery(
        """
        SELECT entry.id, entry.seq, entry.footprint, CASE WHEN entry_access.hit_count > 0 THEN entry_access.last_access END
        FROM entry
        LEFT JOIN entry_access ON entry_access.id = entry.id
        WHERE entry.seq > ? AND entry.seq <= ? ORDER BY entry.seq LIMIT ?
        """)
    /// Removes an entry (the delete trigger takes its body, usage row, purge record and counts). The caller
    /// read its footprint with the row's other columns: `RETURNING` would build a table of the deleted rows,
    /// a sixth of an eviction's instructions.
    private static let evict = SQLiteQuery("DELETE FROM entry WHERE id = ?")

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
