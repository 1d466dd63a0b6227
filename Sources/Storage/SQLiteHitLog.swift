import Synchronization

/// Hits and last accesses gathered in memory, by entry row, and written to the entry rows rarely and
/// in bulk: when the log is full, at each sweep, at shutdown, and, one entry at a time, when eviction
/// is about to remove an entry the log has seen used (it is moved up the LRU order instead).
///
/// Why: writing a hit changes the entry's row page and two pages of the `entry_lru` index. With a
/// thousand entries the same few pages absorb every hit; with a million, hits spread over the whole
/// file, so each one appended three pages to the WAL, and lookups then read those pages back from the
/// WAL with `pread` instead of the memory map (Benchmarks/million: 0.31 of a thousand's hit rate). A
/// large batch written in rowid order changes each page once however many of its rows were hit.
///
/// What callers see is unchanged: `entry(for:)` and `list(_:)` add what the log holds to the row. A crash
/// loses the hits gathered since the last write, which are statistics and LRU hints, not data.
/// Memory: about 48 bytes an entry, so at most `capacity` × 48 bytes (12 MiB at the default).
final class SQLiteHitLog: Sendable {
    struct Hits: Equatable {
        var count: Int
        /// Seconds since 1970, as the `last_access` column.
        var last: Double
    }

    private struct State {
        var pending: [Int64: Hits] = [:]
        var flushRequested = false
    }

    /// Entries the log holds before it asks for a flush.
    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = max(capacity, 1)
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

    /// Forgets a row's hits: its entry was deleted or replaced.
    func forget(_ rowID: Int64) {
        state.withLock { _ = $0.pending.removeValue(forKey: rowID) }
    }

    /// Takes everything the log holds, in rowid order (the order that writes each page once).
    func takeAll() -> [(rowID: Int64, hits: Hits)] {
        let taken = state.withLock { state in
            defer {
                state.pending = [:]
                state.flushRequested = false
            }
            return state.pending
        }
        return taken.map { (rowID: $0.key, hits: $0.value) }.sorted { $0.rowID < $1.rowID }
    }

    /// Takes what the log holds for the given rows (eviction's candidates).
    func take(_ rowIDs: some Sequence<Int64>) -> [Int64: Hits] {
        state.withLock { state in
            var taken: [Int64: Hits] = [:]
            for rowID in rowIDs {
                if let hits = state.pending.removeValue(forKey: rowID) { taken[rowID] = hits }
            }
            return taken
        }
    }

    /// How many entries the log holds.
    var count: Int { state.withLock { $0.pending.count } }
}
