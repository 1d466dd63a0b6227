import CacheCore
import CachePolicy
import HTTPCore
import Synchronization

/// The serialized response heads of stored entries served recently, so that a plain hit from the store
/// (no range, no conditional: what nearly every hit is) copies its head instead of planning the body's
/// fields, adding Larder's marks and serializing them again: about a quarter of the instructions of a
/// 1 KiB hit with the memory tier off (callgrind, docs/ARCHITECTURE.md "A plain hit from the store sends a
/// prepared head").
///
/// A head is the memory tier's prepared head (`HotEntry.preparedHead`) for an entry that is not in memory:
/// within one second of the `Date` clock, the head of an entry answered in one form with the same marks is
/// the same bytes. `Slot` names everything the bytes are made of besides the stored fields, which are
/// compared whole (at once when the entry came from the store's memo, which shares their storage).
///
/// Bounded: `slotCount` slots, direct-mapped by the key's first word, and no head above `maxHeadBytes`
/// kept; at most 4 MiB. A key's head is kept once it is built a second time within a short while
/// (`MemoDoorkeeper`).
final class StoredHeadMemo: Sendable {
    /// What a head is made of, besides the stored fields.
    struct Slot: Equatable, Sendable {
        /// The entry's key (also its `X-Cache-Key`).
        var key: CacheKey
        /// The body the head announces. A store never gives an id twice (`StoredEntry.bodyID`): a new
        /// response under the key has a new one, so the id stands for the status, the codec and the sizes,
        /// which the stored fields do not say.
        var bodyID: Int64
        /// The form sent (identity, or the stored gzip member): with the body, the `Content-Length`.
        var gzip: Bool
        /// The marks: `X-Cache`, `Age` and `Cache-Status`.
        var xCache: XCache
        var age: Int64
        var cacheStatus: CacheStatus
        /// The second of the `Date` clock the head was built in.
        var dateSecond: Int
    }

    private final class Remembered: Sendable {
        let slot: Slot
        let storedHeaders: HTTPHeaders
        let bytes: [UInt8]

        init(slot: Slot, storedHeaders: HTTPHeaders, bytes: [UInt8]) {
            self.slot = slot
            self.storedHeaders = storedHeaders
            self.bytes = bytes
        }
    }

    private struct State {
        var slots: [Remembered?]
        var doorkeeper: MemoDoorkeeper
    }

    private let state: Mutex<State>
    /// The most heads kept (a power of two).
    let slotCount: Int
    /// Heads longer than this are built for every hit, not kept.
    static let maxHeadBytes = 4096
    /// Heads answered from memory, for tests.
    let answeredFromMemory = Atomic<Int>(0)

    /// Creates an empty memo.
    /// - Parameter slotCount: the most heads kept, rounded up to a power of two; 0 keeps none.
    init(slotCount: Int = 1024) {
        self.slotCount = slotCount > 0 ? powerOfTwo(atLeast: slotCount) : 0
        state = Mutex(
            State(
                slots: Array(repeating: nil, count: self.slotCount),
                doorkeeper: MemoDoorkeeper(cellCount: self.slotCount)))
    }

    /// The head for `slot` of an entry with these stored fields: remembered when both are the same as
    /// when it was built, else built by `build` (and remembered if the doorkeeper admits the key).
    func head(for slot: Slot, storedHeaders: HTTPHeaders, build: () -> [UInt8]) -> [UInt8] {
        let index = Int(truncatingIfNeeded: slot.key.leadingWord) & (slotCount - 1)
        if slotCount > 0, let remembered = state.withLock({ $0.slots[index] }), remembered.slot == slot,
            remembered.storedHeaders == storedHeaders
        {
            answeredFromMemory.add(1, ordering: .relaxed)
            return remembered.bytes
        }
        let bytes = build()
        if slotCount > 0 && bytes.count <= Self.maxHeadBytes {
            state.withLock { state in
                // A key already kept (its head is of another second now, or changed) is kept again without
                // asking the doorkeeper.
                guard state.slots[index]?.slot.key == slot.key || state.doorkeeper.admits(slot.key.leadingWord)
                else { return }
                state.slots[index] = Remembered(slot: slot, storedHeaders: storedHeaders, bytes: bytes)
            }
        }
        return bytes
    }
}
