import Synchronization

/// Hits and last accesses gathered in memory, by entry row, and written to the usage rows rarely and
/// in bulk: when the log is full, at each sweep and at shutdown. Eviction reads what the log holds as well
/// as the rows (an entry the log saw used is spared, `SQLiteEvictionHand`).
///
/// Why: writing a hit changes the entry's row page and two pages of the `entry_lru` index. With a
/// thousand entries the same few pages absorb every hit; with a million, hits spread over the whole
/// file, so each one appended three pages to the WAL, and lookups then read those pages back from the
/// WAL with `pread` instead of the memory map (Benchmarks/million: 0.31 of a thousand's hit rate). A
/// large batch written in rowid order changes each page once however many of its rows were hit.
///
/// What callers see is unchanged: `entry(for:)` and `list(_:)` add what the log holds to the row. A crash
/// loses the hits gathered since the last write, which are statistics and eviction hints, not data.
///
/// Everything that moves hits out of the log does so under the writer lock: a flush takes each batch
/// inside its transaction, and a commit, delete or eviction that replaces or removes a row forgets that
/// row's hits next to its `DELETE`. So hits are always either in the log or
/// in a row, and never land on the row of an entry that replaced the one they were counted for.
///
/// Memory: about 48 bytes an entry. The log asks for a flush at `capacity` entries (12 MiB at the default)
/// and keeps counting while the flush runs, so it holds `capacity` plus the new entries hit during one
/// flush; the flush itself holds the sorted row ids (8 bytes an entry).
final class SQLiteHitLog: Sendable {
    struct Hits: Equatable {
        var count: Int
        /// Seconds since 1970, as the `last_access` column.
        var last: Double
    }

    private struct State {
        var pending: [Int64: Hits]
        var flushRequested = false
    }

    /// Entries the log holds before it asks for a flush.
    let capacity: Int
    private let state: Mutex<State>

    init(capacity: Int) {
        self.capacity = max(capacity, 1)
        // Sized once: emptied entry by entry as batches are written, the table keeps its storage and
        // never rehashes under the lock every hit takes.
        state = Mutex(State(pending: Dictionary(minimumCapacity: self.capacity)))
    }

    /// Adds hits of the entry in row `rowID`.
    /// - Returns: `true` once when the log has become full: the caller then schedules one flush.
    func record(_ rowID: Int64, count: Int, at last: Double) -> Bool {
        state.withLock { state in
            var hits = state.pending[rowID] ?? Hits(count: 0, last: last)
            hits.count += count
            hits.last = max(hits.last, last)
            state.pending[rowID] = hits
            guard state.pending.count >= capacity, !state.flushRequested else { return false }
            state.flushRequested = true
            return true
        }
    }

    /// What the log holds for row `rowID`, not yet written.
    func pending(_ rowID: Int64) -> Hits? {
        state.withLock { $0.pending[rowID] }
    }

    /// The rows the log holds, in rowid order (the order that writes each page once).
    func rowsInOrder() -> [Int64] {
        state.withLock { Array($0.pending.keys) }.sorted()
    }

    /// Takes what the log holds for `rowIDs`, in their order; rows it holds nothing for are left out.
    func take(_ rowIDs: some Sequence<Int64>) -> [(rowID: Int64, hits: Hits)] {
        state.withLock { state in
            rowIDs.compactMap { row in state.pending.removeValue(forKey: row).map { (rowID: row, hits: $0) } }
        }
    }

    /// Takes what the log holds for one row (eviction's candidate).
    func take(_ rowID: Int64) -> Hits? {
        state.withLock { $0.pending.removeValue(forKey: rowID) }
    }

    /// Forgets a row's hits: its entry is being deleted or replaced.
    func forget(_ rowID: Int64) {
        _ = take(rowID)
    }

    /// A flush ended: the next time the log is full asks for another.
    func flushEnded() {
        state.withLock { $0.flushRequested = false }
    }

    /// How many entries the log holds.
    var count: Int { state.withLock { $0.pending.count } }
}
