import CacheCore
import Synchronization

/// The primary keys the store may hold: a Bloom filter over their row ids (a key's first 64 bits), so that
/// a lookup of a URL never stored is answered without SQLite, and `/fetch` sends that miss to the origin
/// without the hop to the storage executor.
///
/// Why: a miss's lookup is a read transaction (two `fcntl` calls for the WAL read lock), a descent of the
/// `vary` and `entry` B-trees through a reader cache that the last commit emptied (about 2.6 `pread`s a miss
/// under a flood), and two thread hops. Skipping it took 9–12 % of the CPU of a 1 KiB miss (docs/
/// ARCHITECTURE.md, "A key never stored is not looked up").
///
/// The filter may say a key is held when it is not (about 1 in 300 just after a build, 1 in 30 at
/// `capacity`): the lookup then runs and misses as before. It never says a key is absent when it is
/// stored, which is what keeps it safe:
/// - every key is added inside the transaction that writes its row (`SQLiteCommitGroup.apply`), before any
///   reader can see the row;
/// - a build scans the store in a snapshot taken after every transaction that was under way when the build
///   began has ended, and the keys added from that moment on are kept apart and added to the new table.
///
/// Deleted keys stay in the table until the next build. A build runs when the store opens and whenever the
/// keys added since the last one exceed its capacity, which is twice the keys it scanned, rounded up to a
/// power of two; one byte of table a key of capacity: 2–4 bytes a stored entry, 2–4 MiB at a million.
final class StoredKeyFilter: Sendable {
    /// A blocked Bloom filter: each key sets 4 bits of one 64-bit block.
    struct Table {
        private var blocks: [UInt64]
        private let mask: Int
        /// The keys it was built for, and more it may take before a build should replace it.
        let capacity: Int
        /// Keys added, scanned ones included.
        private(set) var count = 0

        /// A table for `capacity` keys (a power of two, at least 8): one byte a key, 8 keys a block.
        init(capacity: Int) {
            self.capacity = capacity
            blocks = Array(repeating: 0, count: capacity / 8)
            mask = capacity / 8 - 1
        }

        /// The block comes from the id's low bits, the four bit positions from its top 24, so the two never
        /// share bits for up to 2^40 blocks. The ids are a SHA-256 digest's bits: no further mixing needed.
        private func slot(_ id: UInt64) -> (block: Int, bits: UInt64) {
            let high = id >> 40
            let bits: UInt64 =
                1 << (high & 63) | 1 << (high >> 6 & 63) | 1 << (high >> 12 & 63) | 1 << (high >> 18 & 63)
            return (Int(truncatingIfNeeded: id) & mask, bits)
        }

        func contains(_ id: UInt64) -> Bool {
            let (block, bits) = slot(id)
            return blocks[block] & bits == bits
        }

        mutating func insert(_ id: UInt64) {
            let (block, bits) = slot(id)
            blocks[block] |= bits
            count += 1
        }

        /// The table for `ids` after a build: capacity twice their number, at least `minimumCapacity`.
        static func built(from ids: [UInt64], minimumCapacity: Int) -> Table {
            var table = Table(capacity: max(minimumCapacity, powerOfTwo(atLeast: 2 * ids.count)))
            for id in ids { table.insert(id) }
            return table
        }

        var bytes: Int { blocks.count * 8 }
    }

    private struct State {
        /// The filter; `nil` until the first build ends: until then every key may be held.
        var table: Table?
        /// Keys added since the running build began, `nil` when none runs.
        var addedDuringBuild: [UInt64]?
    }

    private let state = Mutex(State())
    /// The smallest table built (8 KiB): a small store does not rebuild at every few hundred keys.
    let minimumCapacity: Int

    init(minimumCapacity: Int = 1 << 13) {
        self.minimumCapacity = powerOfTwo(atLeast: max(8, minimumCapacity))
    }

    /// Whether a key with this row id may be held; `false` only when it certainly is not.
    func mayHold(_ id: UInt64) -> Bool {
        state.withLock { $0.table?.contains(id) ?? true }
    }

    /// Adds a key about to be written, inside the writing transaction.
    /// - Returns: whether the table is past its capacity and no build runs: the caller starts one.
    func add(_ id: UInt64) -> Bool {
        state.withLock { state in
            state.addedDuringBuild?.append(id)
            guard state.table != nil else { return false }
            state.table!.insert(id)
            return state.addedDuringBuild == nil && state.table!.count > state.table!.capacity
        }
    }

    /// Starts a build: keys added from now on are kept for the new table. `false` when one runs already.
    func beginBuild() -> Bool {
        state.withLock { state in
            guard state.addedDuringBuild == nil else { return false }
            state.addedDuringBuild = []
            return true
        }
    }

    /// Ends the build with the ids its snapshot held: the new table has them and every key added since
    /// `beginBuild`.
    func finishBuild(scanned: [UInt64]) {
        // The table is filled outside the lock; only the keys added meanwhile are added under it.
        var table = Table.built(from: scanned, minimumCapacity: minimumCapacity)
        state.withLock { state in
            for id in state.addedDuringBuild ?? [] { table.insert(id) }
            state.table = table
            state.addedDuringBuild = nil
        }
    }

    /// Ends a build that could not scan the store: the table before it, if any, stays.
    func abandonBuild() {
        state.withLock { $0.addedDuringBuild = nil }
    }

    /// The table's size and the keys in it, `nil` before the first build (for tests and metrics).
    var figures: (bytes: Int, keys: Int, capacity: Int)? {
        state.withLock { state in state.table.map { ($0.bytes, $0.count, $0.capacity) } }
    }
}
