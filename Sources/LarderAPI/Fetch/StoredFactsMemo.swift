import CacheCore
import CachePolicy
import FoundationEssentials
import HTTPCore
import Synchronization

/// The freshness facts (`ResponseFacts`) of stored entries served recently, so that a hit from the store
/// does not parse its entry's `Cache-Control`, `Date`, `Expires` and `Age` again: about 6 200 of the
/// 87 000 instructions of a 1 KiB hit with the memory tier off (callgrind).
///
/// The facts are a pure function of the entry's status, header fields, request and response times and
/// soft-purge time (in whole seconds, as `StoredEntry.facts(targets:)` rounds them) and of the targeted
/// fields this cache obeys, which are fixed for the service. Remembered facts are used only when every
/// one of those inputs is equal to the entry's, so nothing needs invalidating. The comparison is cheap
/// because an entry the store remembers (`SQLiteEntryMemo`) shares its header array with the facts
/// computed from it, and arrays that share storage compare equal at once.
///
/// Bounded: `slotCount` slots, direct-mapped by the key's first word; a new entry replaces its slot's,
/// once it is computed a second time within a short while (`MemoDoorkeeper`).
final class StoredFactsMemo: Sendable {
    private final class Remembered: Sendable {
        let key: CacheKey
        let facts: ResponseFacts

        init(key: CacheKey, facts: ResponseFacts) {
            self.key = key
            self.facts = facts
        }
    }

    private struct State {
        var slots: [Remembered?]
        var doorkeeper: MemoDoorkeeper
    }

    private let state: Mutex<State>
    /// The targeted fields this cache obeys.
    let targets: TargetedCacheControl
    /// The most entries whose facts are kept (a power of two).
    let slotCount: Int
    /// Facts answered from memory, for tests.
    let answeredFromMemory = Atomic<Int>(0)

    /// Creates an empty memo.
    /// - Parameters:
    ///   - targets: the targeted fields this cache obeys (`FetchConfiguration.targetedCacheControl`).
    ///   - slotCount: the most entries kept, rounded up to a power of two; 0 keeps none.
    init(targets: TargetedCacheControl, slotCount: Int = 4096) {
        self.targets = targets
        self.slotCount = slotCount > 0 ? powerOfTwo(atLeast: slotCount) : 0
        state = Mutex(
            State(
                slots: Array(repeating: nil, count: self.slotCount),
                doorkeeper: MemoDoorkeeper(cellCount: self.slotCount)))
    }

    /// The entry's facts: remembered when their inputs are the entry's, else computed (and remembered if
    /// the doorkeeper admits the key).
    func facts(of entry: StoredEntry) -> ResponseFacts {
        guard slotCount > 0 else { return entry.facts(targets: targets) }
        let index = Int(truncatingIfNeeded: entry.key.leadingWord) & (slotCount - 1)
        if let remembered = state.withLock({ $0.slots[index] }), remembered.key == entry.key,
            Self.sameInputs(remembered.facts, entry)
        {
            answeredFromMemory.add(1, ordering: .relaxed)
            return remembered.facts
        }
        let facts = entry.facts(targets: targets)
        state.withLock { state in
            // A key already kept (its inputs changed since) is kept again without asking the doorkeeper.
            guard state.slots[index]?.key == entry.key || state.doorkeeper.admits(entry.key.leadingWord) else {
                return
            }
            state.slots[index] = Remembered(key: entry.key, facts: facts)
        }
        return facts
    }

    /// Whether `facts` were computed from what `entry` holds now (the inputs of `facts(targets:)`).
    static func sameInputs(_ facts: ResponseFacts, _ entry: StoredEntry) -> Bool {
        facts.status == entry.status.code
            && facts.requestTime == Int64(entry.requestTime.timeIntervalSince1970.rounded(.down))
            && facts.responseTime == Int64(entry.responseTime.timeIntervalSince1970.rounded(.down))
            && facts.staleSince == entry.staleSince.map { Int64($0.timeIntervalSince1970.rounded(.down)) }
            && facts.headers == entry.headers
    }
}
