import CacheCore
import Dispatch
import FoundationEssentials
import Synchronization

/// The last step of one body's write, ready to run on the writer connection: its final chunk, its
/// facts, and the entry row that makes it visible.
struct SQLiteCommitJob: Sendable {
    let entry: StoredEntry
    let facts: StoredBodyFacts
    /// The final chunk, encoded, and its sequence number; `nil` for an empty body. `crc32` is the chunk's
    /// CRC-32 when the writer knows it already (a body stored as it came, in one chunk, is its own chunk).
    let lastChunk: (bytes: [UInt8], sequence: Int64, crc32: UInt32?)?
    /// The pending body the earlier chunks went to; `nil` when the body fits in its final chunk.
    let pendingBody: Int64?
    /// The purge generation when the write began (`SQLitePurgeLog`).
    let purgeGeneration: UInt64
    let now: Date
    let completion: @Sendable (Result<StoredEntry, CacheStoreError>) -> Void
}

/// Commits finished bodies in groups: one SQLite transaction for every body that finished while the
/// previous group was being committed.
///
/// Why: in WAL mode a commit appends every page it changed to the log. One entry touches the entry
/// table, five indexes, its usage row, the chunk table, the stats row and the vary table, about ten
/// pages, and some of them (the right edge of `entry_seq` and `entry_sweep`, the chunk table, the stats
/// row) are the same pages for the next entry. Under a burst of misses a group writes those pages once.
///
/// A group is never waited for: a lone commit runs at once on `queue`; commits that arrive while it runs
/// form the next group. The bodies of a group share the transaction with no savepoint each (a savepoint
/// copies every page it touches to a statement journal: 4% of a 1 KiB miss's instructions). So a job that
/// fails rolls the whole transaction back, and then every job of the group is committed again on its
/// own: the one that failed fails alone. A failed `BEGIN` or `COMMIT` fails the whole group, and nothing
/// of it is visible. A failed job's pending chunks are deleted, as an abandoned write's are.
final class SQLiteCommitGroup: Sendable {
    private struct Pending {
        var jobs: [SQLiteCommitJob] = []
        /// The array `drain` emptied last, kept for its capacity: the next swap hands it to `jobs`, so a queue
        /// that fills again under a flood does not grow a new buffer by reallocations each time.
        var spare: [SQLiteCommitJob] = []
        var draining = false
    }

    /// Bodies committed in one transaction at most, so that one group's transaction stays short.
    static let maxGroup = 64

    private let queue = DispatchQueue(label: "larder.storage.commit", qos: .utility)
    private let pending = Mutex(Pending())
    /// Groups committed and bodies in them, for tests and the benchmark notes.
    let groups = Atomic<Int>(0)
    let bodies = Atomic<Int>(0)

    /// Queues a job; its completion runs on the group's queue once its transaction ended.
    /// - Parameters:
    ///   - job: the body's last step.
    ///   - store: the store that owns this group (it holds the writer connection).
    func submit(_ job: SQLiteCommitJob, in store: SQLiteCacheStore) {
        let start = pending.withLock { pending -> Bool in
            pending.jobs.append(job)
            guard !pending.draining else { return false }
            pending.draining = true
            return true
        }
        if start { queue.async { [self] in drain(store) } }
    }

    /// Commits one job at once on the caller's thread, in a group of its own.
    func commitNow(_ job: SQLiteCommitJob, in store: SQLiteCacheStore) {
        run([job], in: store)
    }

    /// Commits what is queued, oldest first, in groups of at most `maxGroup`, until nothing is.
    ///
    /// The queue is taken whole (a swap, not a copy) and cut into groups here: under a flood the write
    /// backlog lets thousands of jobs wait, and taking 64 off the front of the shared queue moved all the
    /// others each time (`removeFirst`), 1.7 % of a 1 KiB miss flood's CPU time (`perf`). The taken jobs are
    /// reversed once so that each group comes off the end: a committed group's jobs (their last chunks, their
    /// completions) are let go before the next group runs, as the write backlog, which counts them free
    /// once committed, assumes. Held to the end of the batch, they could be up to the backlog's bound again
    /// in memory that no bound covers.
    private func drain(_ store: SQLiteCacheStore) {
        while true {
            var queued = pending.withLock { pending -> [SQLiteCommitJob] in
                if pending.jobs.isEmpty {
                    pending.draining = false
                    return []
                }
                var taken: [SQLiteCommitJob] = []
                swap(&taken, &pending.spare)
                swap(&taken, &pending.jobs)
                return taken
            }
            if queued.isEmpty { return }
            queued.reverse()
            while !queued.isEmpty {
                let count = min(Self.maxGroup, queued.count)
                let group = Array(queued[(queued.count - count)...].reversed())
                queued.removeLast(count)
                run(group, in: store)
            }
            pending.withLock { swap(&$0.spare, &queued) }
        }
    }

    /// Commits `jobs` and tells each its result: in one transaction, or, when a job failed in it, each
    /// in a transaction of its own.
    private func run(_ jobs: [SQLiteCommitJob], in store: SQLiteCacheStore) {
        var results = commit(jobs, in: store)
        if jobs.count > 1, results.aJobFailed {
            results.outcomes = jobs.map { commit([$0], in: store).outcomes[0] }
        }
        groups.add(1, ordering: .relaxed)
        bodies.add(jobs.count, ordering: .relaxed)
        for (job, result) in zip(jobs, results.outcomes) {
            switch result {
            case .success(let stored):
                store.liveBodies.withLock { _ = $0.remove(stored.bodyID) }
            case .failure:
                if let body = job.pendingBody { store.discardPendingBody(body) }
            }
            job.completion(result)
        }
    }

    /// Commits `jobs` in one transaction, which then evicts what the bound asks for (one commit writes
    /// both). When one fails the transaction is rolled back: every job gets that job's failure, and
    /// `aJobFailed` tells it from a failed `BEGIN` or `COMMIT`. When the eviction fails, the jobs are
    /// committed again without it: an eviction must not fail (and discard) the entries, and the next
    /// commit evicts again. (A savepoint around the eviction would do the same in one go, but SQLite then
    /// copies every page the eviction changes into its statement journal first: 9 000 instructions a
    /// stored miss in a full store, callgrind.)
    private func commit(_ jobs: [SQLiteCommitJob], in store: SQLiteCacheStore, evicting: Bool = true) -> (
        outcomes: [Result<StoredEntry, CacheStoreError>], aJobFailed: Bool
    ) {
        var committed: [StoredEntry] = []
        var varyKeys: [CacheKey] = []
        var aJobFailed = false
        var evicted = 0
        do {
            try store.database.write { connection in
                try connection.inTransaction {
                    var counters = try SQLiteCommitCounters(reading: connection)
                    for job in jobs {
                        do {
                            committed.append(
                                try Self.apply(
                                    job, connection: connection, in: store, counters: &counters, varyKeys: &varyKeys))
                        } catch {
                            aJobFailed = true
                            throw error
                        }
                    }
                    try counters.write(connection)
                    if evicting {
                        do { evicted = try store.evictIfNeeded(inTransactionOf: connection) } catch {
                            throw EvictionFailed()
                        }
                    }
                    return .commit
                }
                store.varyMemo.forget(varyKeys)
            }
            // Counted once the transaction committed: a rolled-back eviction removed nothing.
            store.evictions.add(evicted, ordering: .relaxed)
        } catch is EvictionFailed {
            return commit(jobs, in: store, evicting: false)
        } catch {
            let failure = SQLiteCacheStore.storeError(error, operation: "commit body")
            return (Array(repeating: .failure(failure), count: jobs.count), aJobFailed)
        }
        return (committed.map { .success($0) }, false)
    }

    /// Writes one job in the group's transaction (or `bulkLoad`'s); a failure leaves the transaction to be
    /// rolled back.
    /// - Parameters:
    ///   - counters: the transaction's counters, which the caller writes before it commits.
    ///   - varyKeys: gets the primary key whose `vary` row the job wrote or deleted, for the caller to forget
    ///     in `SQLiteVaryMemo` once the transaction committed.
    static func apply(
        _ job: SQLiteCommitJob, connection: SQLiteConnection, in store: SQLiteCacheStore,
        counters: inout SQLiteCommitCounters, varyKeys: inout [CacheKey]
    ) throws -> StoredEntry {
        let bodyID = job.pendingBody ?? counters.nextBodyID()
        if let last = job.lastChunk {
            try SQLiteBodyWriter.insertChunk(
                last.bytes, body: bodyID, sequence: last.sequence, crc32: last.crc32, connection: connection)
        }
        if job.pendingBody != nil {
            try connection.run(deletePendingBody, [.integer(bodyID)])
        }
        var stored = job.entry
        stored.setStoredBody(job.facts, bodyID: bodyID, now: job.now)
        // A purge that ran while the body was written, and selects it, leaves it stale (`SQLitePurgeLog`).
        if let since = store.purgeLog.staleSince(stored, after: job.purgeGeneration) {
            stored.staleSince = min(stored.staleSince ?? since, since)
        }
        let row = SQLiteCacheStore.rowID(stored.key)
        try replaceEntry(stored, row: row, in: store, counters: &counters, connection: connection)
        // The entry it replaced, if any, takes its unwritten hits with it, under the same lock as the delete.
        store.hitLog.forget(row)
        let primaryKey = stored.primaryKey
        store.addToKeyFilter(primaryKey)
        if stored.key != primaryKey { store.addToKeyFilter(stored.key) }
        let mayHaveNames = store.mayVary(primaryKey: primaryKey)
        if stored.varyNames.isEmpty {
            // A URL that varied and no longer does loses its names; one that never varied has none to lose.
            if mayHaveNames {
                try connection.run(deleteVary, [.blob(primaryKey.bytes)])
                varyKeys.append(primaryKey)
            }
        } else {
            store.addToVaryFilter(primaryKey)
            let names = SQLiteCacheStore.encodeNames(stored.varyNames)
            // A URL's second variant (a gzip caller's after an identity caller's) finds the names its first
            // stored: reading them in this transaction leaves their B-tree's page out of the log.
            let current = mayHaveNames ? try storedNames(of: primaryKey, connection: connection) : nil
            if current != names {
                try connection.run(replaceVary, [.blob(primaryKey.bytes), .text(names)])
                varyKeys.append(primaryKey)
            }
        }
        return stored
    }

    /// Writes the entry's row in place of any row with its id, by rowid alone: this also replaces an entry
    /// whose key shares the first 64 bits. The key filter holds the id of every row its builds scanned and
    /// of every key `apply` wrote since (`StoredKeyFilter`), so where it says the id is free the delete before
    /// the insert is skipped, 0.6–1.8 % of a stored miss's instructions (callgrind). A row it cannot know of,
    /// written to the file by other means since the last build, fails the insert on the primary key, and the
    /// delete runs then.
    private static func replaceEntry(
        _ stored: StoredEntry, row: Int64, in store: SQLiteCacheStore, counters: inout SQLiteCommitCounters,
        connection: SQLiteConnection
    ) throws {
        if !store.mayHold(rowOf: stored.key) {
            do {
                return try SQLiteCacheStore.insert(stored, counting: &counters, into: connection)
            } catch let error as SQLiteError where error.isPrimaryKeyConflict {}
        }
        try connection.run(deleteEntry, [.integer(row)])
        try SQLiteCacheStore.insert(stored, counting: &counters, into: connection)
    }

    /// The `Vary` names stored for `primaryKey` as the writer sees them, `nil` when there are none.
    private static func storedNames(of primaryKey: CacheKey, connection: SQLiteConnection) throws -> String? {
        try connection.queryFirst(SQLiteCacheStore.lookUpVaryNames, [.blob(primaryKey.bytes)]) { $0.text(0) } ?? nil
    }

    // The statements every job runs, as constants: a statement given as a `String` is found in the
    // connection's cache by hashing its text, about 1 500 instructions a statement (callgrind).
    private static let deletePendingBody = SQLiteQuery("DELETE FROM pending_body WHERE id = ?")
    private static let deleteEntry = SQLiteQuery("DELETE FROM entry WHERE id = ?")
    private static let deleteVary = SQLiteQuery("DELETE FROM vary WHERE primary_key = ?")
    private static let replaceVary = SQLiteQuery("INSERT OR REPLACE INTO vary (primary_key, names) VALUES (?, ?)")
}

/// An eviction inside a commit's transaction failed (`SQLiteCommitGroup.commit`).
private struct EvictionFailed: Error {}
