import CacheCore
import FoundationEssentials
import Synchronization

/// The recent purges of one store, numbered, so that a body being written while a purge ran is not
/// committed fresh when the purge would have selected it: otherwise a miss being stored while the purge ran
/// would bring back, as fresh, what the purge was meant to remove.
///
/// A writer notes the generation when it begins (`generation`), or takes the one its fetch noted before
/// sending the request (`CacheBodyHints.purgesBefore`: a purge between the request and the response head
/// would otherwise be missed); the purge records itself under the writer
/// connection's lock before it changes any row (`record`); the commit, under the same lock, asks which
/// purges came after its writer began and match its entry on the facts known at commit (URL, host, prefix,
/// tags) (`staleSince`). A matching entry is committed with `staleSince` set: never served as fresh, but
/// revalidated on its next request. Entries no purge matches are stored as usual, so frequent purges do not
/// stop storing. Either the purge runs first (the commit sees its record) or the commit does (the purge
/// finds the row): the writer lock orders them.
///
/// The log keeps the last `capacity` purges. A writer older than all of them (more purges than that ran
/// during one body's write) is committed stale whatever it holds: the purges it missed are forgotten, and
/// stale is the safe side.
final class SQLitePurgeLog: Sendable {
    struct Record {
        let generation: UInt64
        let scope: CachePurgeScope
        let at: Date
    }

    private struct State {
        var generation: UInt64 = 0
        var records: [Record] = []
    }

    /// How many purges are remembered.
    static let capacity = 1024

    private let state = Mutex(State())

    /// The generation now: what a writer notes when it begins.
    var generation: UInt64 { state.withLock { $0.generation } }

    /// Records a purge about to change rows; call under the writer connection's lock.
    /// - Parameters:
    ///   - scope: what it selects.
    ///   - at: when it runs.
    func record(_ scope: CachePurgeScope, at: Date) {
        state.withLock { state in
            state.generation += 1
            state.records.append(Record(generation: state.generation, scope: scope, at: at))
            if state.records.count > Self.capacity { state.records.removeFirst(state.records.count - Self.capacity) }
        }
    }

    /// When an entry whose write began at `generation` must count as stale from: the time of the first
    /// purge since then that selects it, or `nil` when none does. Call under the writer connection's lock.
    /// - Parameters:
    ///   - entry: the entry about to be committed.
    ///   - generation: `generation` when its writer began.
    /// - Returns: the purge's time, or `nil`.
    func staleSince(_ entry: StoredEntry, after generation: UInt64) -> Date? {
        state.withLock { state in
            // The common case: no purge since the writer began.
            guard state.generation > generation else { return nil }
            guard let oldest = state.records.first, oldest.generation <= generation + 1 else {
                return state.records.first?.at ?? Date(timeIntervalSince1970: 0)
            }
            return state.records.first {
                $0.generation > generation && $0.scope.matches(entry)
            }?.at
        }
    }
}
