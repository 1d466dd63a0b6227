import CacheCore
import HTTPCore
import Synchronization

/// Entries decoded by recent lookups, so that the next lookup of one reads only its row's body id and
/// first chunk (`SQLiteCacheStore.lookUpKnownEntry`) instead of its 28 columns. Decoding a row was the
/// largest part of a hit from the store: about 16 000 of the 112 000 instructions of a 1 KiB hit with
/// the memory tier off, half of it the stored header fields made into strings again (callgrind).
///
/// Like nginx's `keys_zone`, this is metadata, not bodies: the body is read from SQLite on every hit, so
/// `--hot-bytes 0` still serves every byte from the store.
///
/// The row stays the truth. A remembered entry is used only while
/// - its row holds the same body: a commit that replaces an entry gives it a new body id, and a body id
///   is never given twice; a deleted, evicted or purged entry has no row the lookup can see;
/// - no update in place of entry rows (a revalidation's merged headers, a soft purge) committed since it
///   was decoded: those move `generation` on once they committed (`entriesChanged`), which retires every
///   remembered entry. A lookup keeps what it decoded under the generation it read before its statement,
///   so a snapshot from before an update is never used after the update's caller got its answer.
///
/// Bounded twice: `slotCount` slots, direct-mapped by rowid (a rowid is 64 bits of a SHA-256, so the
/// slots fill evenly; a new entry replaces the one in its slot), and `byteBudget` for the entries' cost
/// estimated from their URL and header bytes (an entry that does not fit is not kept). An entry is kept
/// at its second decode within a short while (`MemoDoorkeeper`), so random lookups over a store far
/// larger than the memo do not replace a slot each.
final class SQLiteEntryMemo: Sendable {
    /// A class, so that a slot is one reference and the empty slots cost 8 bytes each.
    private final class Remembered: Sendable {
        let rowID: Int64
        let entry: StoredEntry
        let generation: UInt64
        let cost: Int

        init(rowID: Int64, entry: StoredEntry, generation: UInt64, cost: Int) {
            self.rowID = rowID
            self.entry = entry
            self.generation = generation
            self.cost = cost
        }
    }

    private struct State {
        var slots: [Remembered?]
        var cost = 0
        var doorkeeper: MemoDoorkeeper
    }

    private let state: Mutex<State>
    private let generation = Atomic<UInt64>(0)
    /// The most entries kept (a power of two).
    let slotCount: Int
    /// The most estimated bytes kept.
    let byteBudget: Int

    /// 8 192 slots and 8 MiB: the headers and URLs of a few thousand hot entries.
    static let defaultSlotCount = 8192
    static let defaultByteBudget = 8 << 20

    /// Creates an empty memo.
    /// - Parameters:
    ///   - slotCount: the most entries kept, rounded up to a power of two; 0 keeps none.
    ///   - byteBudget: the most estimated bytes kept.
    init(slotCount: Int = SQLiteEntryMemo.defaultSlotCount, byteBudget: Int = SQLiteEntryMemo.defaultByteBudget) {
        self.slotCount = slotCount > 0 ? powerOfTwo(atLeast: slotCount) : 0
        self.byteBudget = byteBudget
        state = Mutex(
            State(
                slots: Array(repeating: nil, count: self.slotCount),
                doorkeeper: MemoDoorkeeper(cellCount: self.slotCount)))
    }

    /// The generation a lookup reads before its statement and gives `keep`.
    var currentGeneration: UInt64 { generation.load(ordering: .acquiring) }

    /// The entry remembered for `key`, decoded in the current generation; the caller still checks that its
    /// row holds the same body.
    func entry(for key: CacheKey, rowID: Int64) -> StoredEntry? {
        guard slotCount > 0 else { return nil }
        let current = currentGeneration
        return state.withLock { state -> StoredEntry? in
            guard let remembered = state.slots[slot(rowID)], remembered.rowID == rowID,
                remembered.generation == current, remembered.entry.key == key
            else { return nil }
            return remembered.entry
        }
    }

    /// Remembers an entry a lookup decoded, unless it is the entry's first decode in a while and its row is
    /// not the one kept in its slot (`MemoDoorkeeper`), an update committed since `generation` was read, or its cost does not fit the
    /// budget.
    /// - Parameters:
    ///   - entry: the entry as the lookup decoded it.
    ///   - rowID: its row.
    ///   - generation: `currentGeneration` as read before the lookup's statement.
    func keep(_ entry: StoredEntry, rowID: Int64, decodedIn generation: UInt64) {
        guard slotCount > 0, generation == currentGeneration else { return }
        let index = slot(rowID)
        // A row already kept (decoded again after a change) is kept again without asking the doorkeeper.
        let admitted = state.withLock { state in
            state.slots[index]?.rowID == rowID || state.doorkeeper.admits(UInt64(bitPattern: rowID))
        }
        guard admitted else { return }
        let cost = Self.cost(of: entry)
        state.withLock { state in
            let replaced = state.slots[index]?.cost ?? 0
            guard state.cost - replaced + cost <= byteBudget else { return }
            state.slots[index] = Remembered(rowID: rowID, entry: entry, generation: generation, cost: cost)
            state.cost += cost - replaced
        }
    }

    /// Retires every remembered entry: an update in place of entry rows committed.
    func entriesChanged() {
        generation.add(1, ordering: .releasing)
    }

    /// Entries remembered now, whatever their generation (for tests).
    var count: Int { state.withLock { $0.slots.lazy.filter { $0 != nil }.count } }

    /// Estimated bytes of the entries remembered now (for tests and the memory figures).
    var cost: Int { state.withLock { $0.cost } }

    private func slot(_ rowID: Int64) -> Int { Int(truncatingIfNeeded: rowID) & (slotCount - 1) }

    /// An entry's memory estimated from its text: its URL and header fields, each field's strings twice
    /// over for their storage, and a fixed part for the entry's other fields.
    static func cost(of entry: StoredEntry) -> Int {
        var bytes = 512 + entry.url.utf8.count
        for field in entry.headers { bytes += 64 + 2 * (field.name.utf8.count + field.value.utf8.count) }
        return bytes
    }
}
