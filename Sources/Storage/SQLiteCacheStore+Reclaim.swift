import Dispatch
import Synchronization

extension SQLiteCacheStore {
    /// How long the other writers get the writer after each reclaim batch, as a share of the batch's time:
    /// 2 leaves the reclaimer a third of the writer while commits keep coming. Nobody waits for a reclaim
    /// (the purge answered already), so it yields more than a purge does (`purgeTurnShare`).
    static let reclaimTurnShare = 2.0

    /// Deletes the purged entries (`entry_purged`) on `reclaims`, in batches like a purge's, each batch
    /// its own transaction of at most `purgeBatchSize` rows, with the other writers' turn between two.
    /// Called after a hard purge, when a store opens with purged entries left, and by the sweep while
    /// there may be some (a reclaim that failed is tried again then).
    func scheduleReclaim() {
        reclaims.async { [weak self] in try? Self.reclaimUntilDone { self } }
    }

    /// Deletes every purged entry not yet reclaimed, and returns once they are gone: on `reclaims`, after
    /// a reclaim under way. For tests, benchmarks and tools that read the file afterwards.
    /// - Throws: `CacheStoreError` when the store cannot be written.
    public func reclaimPurged() throws {
        try reclaims.sync { try Self.reclaimUntilDone { self } }
    }

    /// Runs reclaim batches, each followed by the other writers' turn, until none is left. `store` is asked
    /// for before each batch: the store is held for one batch and one turn at a time, so that one nobody
    /// else holds can go away between them.
    private static func reclaimUntilDone(_ store: () -> SQLiteCacheStore?) throws {
        var size = min(100, purgeBatchSize)
        while let store = store() {
            let batch = try store.reclaimBatch(size: size)
            guard batch.more else { return }
            size = nextBatchSize(after: size, took: batch.took)
            store.database.yieldTurn(batch.took * reclaimTurnShare)
        }
    }

    /// Deletes up to `size` purged entries, lowest ids first (the entry table's pages in order), in one
    /// transaction: the triggers delete their chunks, their `entry_tag` rows and their `entry_purged` rows,
    /// and take them off the counts in `stats`. Clears `purgedRowsMayExist` under the writer lock once none
    /// is left, where a purge sets it.
    /// - Returns: whether purged entries are left, and how long the batch held the writer.
    private func reclaimBatch(size: Int) throws -> (more: Bool, took: Duration) {
        let clock = ContinuousClock()
        let started = clock.now
        let more = try guarded("reclaim") {
            try database.writeBatch { connection -> Bool in
                var deleted = 0
                try connection.inTransaction {
                    deleted = try connection.run(
                        "DELETE FROM entry WHERE id IN (SELECT id FROM entry_purged ORDER BY id LIMIT ?)", [.int(size)])
                    return .commit
                }
                reclaimed.add(deleted, ordering: .relaxed)
                reclaimTransactions.add(1, ordering: .relaxed)
                reclaimLargestTransaction.max(deleted, ordering: .relaxed)
                if deleted == size { return true }
                if try connection.queryFirst("SELECT 1 FROM entry_purged LIMIT 1", row: { _ in true }) == nil {
                    purgedRowsMayExist.store(false, ordering: .releasing)
                    return false
                }
                // Rows left that no entry row matches cannot be (the trigger removes a row's record with
                // it); if some were, stop rather than loop: lookups keep leaving them out.
                return deleted > 0
            }
        }
        return (more, max(clock.now - started, .microseconds(100)))
    }

    /// The next batch's rows: `purgeBatchSize` at most, fewer while a batch takes over `purgeBatchTarget`.
    static func nextBatchSize(after size: Int, took: Duration) -> Int {
        min(purgeBatchSize, max(10, Int(Double(size) * (purgeBatchTarget / took))))
    }

    /// Purged entries this store's reclaimer deleted since it was opened, for tests and the benchmark.
    public var reclaimedCount: Int { reclaimed.load(ordering: .relaxed) }

    /// Transactions the reclaimer has run since the store was opened (each deletes at most `purgeBatchSize`
    /// entries), for tests and the benchmark.
    public var reclaimTransactionCount: Int { reclaimTransactions.load(ordering: .relaxed) }

    /// The most entries one reclaim transaction deleted since the store was opened.
    public var reclaimLargestTransactionRows: Int { reclaimLargestTransaction.load(ordering: .relaxed) }
}
