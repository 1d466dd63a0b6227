public import CacheCore
public import Foundation
import Synchronization

extension SQLiteCacheStore {
    /// Gathers the hit in memory; the batch is written once `hitFlushThreshold` entries have hits,
    /// and at every sweep and eviction, so serving a hit costs no write of its own.
    public func recordHits(_ key: CacheKey, count: Int, at now: Date) {
        let batchFull = pendingHits.withLock { hits -> Bool in
            hits[key, default: PendingHit(count: 0, lastAccess: now)].count += count
            hits[key]!.lastAccess = max(hits[key]!.lastAccess, now)
            return hits.count >= configuration.hitFlushThreshold
        }
        if batchFull { try? flushHits() }
    }

    /// Writes the gathered hits in one transaction.
    /// - Throws: `CacheStoreError` when the store cannot be written (the hits are then dropped: they
    ///   are statistics and LRU hints, not data).
    public func flushHits() throws {
        let hits = pendingHits.withLock { hits in
            defer { hits.removeAll(keepingCapacity: true) }
            return hits.map { (key: $0.key, count: $0.value.count, last: $0.value.lastAccess) }
        }
        guard !hits.isEmpty else { return }
        try guarded("record hits") {
            try database.write { connection in
                try connection.inTransaction {
                    for hit in hits {
                        try connection.run(
                            "UPDATE entry SET hit_count = hit_count + ?, last_access = max(last_access, ?) "
                                + "WHERE id = ? AND key = ?",
                            [
                                .int(hit.count), .real(hit.last.timeIntervalSince1970), .integer(Self.rowID(hit.key)),
                                .blob(hit.key.bytes),
                            ])
                    }
                    return .commit
                }
            }
        }
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
                    swept = try connection.run(
                        "DELETE FROM entry WHERE sweep_after < ?", [.real(now.timeIntervalSince1970)])
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
        return swept
    }

    /// Entries removed by LRU eviction to keep within `maxSize` since the store was opened.
    public var evictedCount: Int { evictions.load(ordering: .relaxed) }

    /// Entries removed by `sweep(now:)` since the store was opened.
    public var sweptCount: Int { sweeps.load(ordering: .relaxed) }

    /// Deletes least recently used entries until the total is within `maxSize`. Runs on the writer
    /// right after a commit.
    func evictIfNeeded(_ connection: SQLiteConnection) throws {
        guard let maxSize = configuration.maxSize else { return }
        var total = try connection.queryFirst("SELECT total_bytes FROM stats WHERE id = 1") { $0.int(0) } ?? 0
        guard total > maxSize else { return }
        var evicted = 0
        // Pending hits move entries up the LRU order; apply them before choosing victims.
        let hits = pendingHits.withLock { hits in
            defer { hits.removeAll(keepingCapacity: true) }
            return hits
        }
        try connection.inTransaction {
            for (key, hit) in hits {
                try connection.run(
                    "UPDATE entry SET hit_count = hit_count + ?, last_access = max(last_access, ?) WHERE id = ? AND key = ?",
                    [
                        .int(hit.count), .real(hit.lastAccess.timeIntervalSince1970), .integer(Self.rowID(key)),
                        .blob(key.bytes),
                    ])
            }
            while total > maxSize {
                let victims = try connection.query("SELECT id, footprint FROM entry ORDER BY last_access, id LIMIT 64")
                {
                    (id: $0.int64(0), footprint: $0.int(1))
                }
                if victims.isEmpty { break }
                for victim in victims where total > maxSize {
                    try connection.run("DELETE FROM entry WHERE id = ?", [.integer(victim.id)])
                    total -= victim.footprint
                    evicted += 1
                }
            }
            return .commit
        }
        // Counted once the transaction committed: a rolled-back eviction removed nothing.
        evictions.add(evicted, ordering: .relaxed)
    }

    /// Deletes an entry whose body failed its checks, unless it was replaced meanwhile.
    func deleteCorrupt(_ entry: StoredEntry) {
        _ = try? database.write { connection in
            try connection.run(
                "DELETE FROM entry WHERE id = ? AND key = ? AND body_id = ?",
                [.integer(Self.rowID(entry.key)), .blob(entry.key.bytes), .integer(entry.bodyID)])
        }
    }

    /// Deletes a body's chunks (and its pending row).
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
    /// - Throws: `CacheStoreError` when the store cannot be written.
    public func checkpoint() throws {
        try flushHits()
        try guarded("checkpoint") {
            try database.write { try $0.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
        }
    }
}
