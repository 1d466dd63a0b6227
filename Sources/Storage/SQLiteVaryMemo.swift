import CacheCore
import Synchronization

/// The `Vary` names recorded per primary key (or that none are), remembered once a lookup has read them
/// from the `vary` table: every `/fetch` lookup asks for them before it can compute its key, and the
/// query was a twentieth of a 1 KiB hit from the store.
///
/// The table stays the truth. A transaction that changes a key's row (a commit, a purge) forgets the key
/// once it has committed, and every change moves a generation on: a lookup remembers what it read only
/// if no change committed since it began, so a snapshot read before a commit is never kept after it.
/// At most `capacity` keys are remembered; when full, everything is forgotten and the memo fills again.
/// A key is remembered at its second read within a short while (`MemoDoorkeeper`), so random lookups over
/// far more keys than that do not fill the memo and empty it again.
final class SQLiteVaryMemo: Sendable {
    private struct State {
        /// The names by primary key; `nil` inside means "no row": the URL does not vary.
        var names: [CacheKey: [String]?] = [:]
        var generation: UInt64 = 0
        var doorkeeper: MemoDoorkeeper
    }

    private let state: Mutex<State>
    /// The most keys remembered.
    let capacity: Int

    /// About 100 bytes a key (the key, the dictionary slot, a short name list): 6.5 MiB when full.
    static let defaultCapacity = 65_536

    init(capacity: Int = SQLiteVaryMemo.defaultCapacity) {
        self.capacity = max(0, capacity)
        state = Mutex(State(doorkeeper: MemoDoorkeeper(cellCount: capacity)))
    }

    /// The names for `key`, from memory or else from `read` (a query of the table), then remembered if the
    /// doorkeeper admits the key.
    func names(for key: CacheKey, read: () throws -> [String]?) rethrows -> [String]? {
        let (known, generation) = state.withLock { ($0.names[key], $0.generation) }
        if let known { return known }
        let names = try read()
        state.withLock { state in
            guard state.generation == generation, capacity > 0, state.doorkeeper.admits(key.leadingWord) else {
                return
            }
            if state.names.count >= capacity { state.names.removeAll(keepingCapacity: true) }
            state.names[key] = .some(names)
        }
        return names
    }

    /// Forgets `keys`, after a transaction that changed their rows committed.
    func forget(_ keys: some Sequence<CacheKey>) {
        state.withLock { state in
            state.generation &+= 1
            for key in keys { state.names[key] = nil }
        }
    }

    /// Forgets every key, after a transaction that changed rows it cannot name committed.
    func forgetAll() {
        state.withLock { state in
            state.generation &+= 1
            state.names.removeAll()
        }
    }

    /// Keys remembered now (for tests).
    var count: Int { state.withLock { $0.names.count } }
}
