import CacheCore
import CachePolicy
import Synchronization

/// Recently served entries kept in memory with their body and a prepared response head, so that a fresh
/// hit on one is answered on the connection's queue without a storage round trip (no thread hop, no
/// SQLite, no zlib, no SHA-256: entries are found by their canonical key URL).
///
/// Only whole bodies up to `maxEntryBytes` are kept, of entries that do not vary or vary on
/// `Accept-Encoding` alone (what every compressing origin sends), at most two per URL: one for callers
/// that accept gzip, one for the others (``EncodingVariant``). For an entry that does not vary these are
/// its identity form and, for bodies stored as deflate chunks, its gzip form; for one that varies on
/// `Accept-Encoding` they are its two stored variants. Within `budgetBytes` counted by
/// ``HotEntry/cost`` memory stays bounded whatever the number of stored entries. Eviction is CLOCK: the
/// oldest insertion goes first unless it was hit since it was inserted or last passed over, in which case
/// it goes to the back once, its mark cleared (a second chance), and the next is considered. Once the tier
/// is full, a body read from the store replaces that victim only when it was asked for more often lately
/// (`admits`, `HotAdmission`). The store stays the truth:
/// `HotInvalidatingStore` drops a URL's entries whenever the store deletes, purges or updates one of
/// them, and a fetch that stores a response drops the URL's entries before committing. Hits served from
/// memory are counted in the store in batches.
final class HotEntryCache: Sendable {
    private struct Slot {
        var identity: HotEntry?
        var gzip: HotEntry?
        var generation = 0
        /// Hit since it was inserted or since eviction last passed over it (CLOCK's reference mark).
        var referenced = false

        var cost: Int { (identity?.cost ?? 0) + (gzip?.cost ?? 0) }
        var entries: [HotEntry] { [identity, gzip].compactMap { $0 } }
    }

    private struct State {
        var slots: [String: Slot] = [:]
        /// The URL of each kept key (two per URL when its variants are kept), for invalidation by key.
        var urls: [CacheKey: String] = [:]
        /// Insertions, oldest first from `orderHead` (the CLOCK's hand); an element whose generation no
        /// longer matches its slot's was superseded and is skipped. A slot given a second chance is appended
        /// again under its generation, the element it leaves behind the hand.
        var order: [(url: String, generation: Int)] = []
        var orderHead = 0
        var nextGeneration = 0
        var bytes = 0
        /// Hits not yet handed to the store, by entry object: hashing an object identity is cheaper than
        /// hashing a 64-digit key, and holding the entry keeps its identity from being reused meanwhile.
        var pendingHits: [ObjectIdentifier: (entry: HotEntry, count: Int)] = [:]
        var pendingCount = 0
        /// How often each key was asked for lately: hits answered here and reads the tier was offered.
        var admission: HotAdmission
    }

    private let state: Mutex<State>
    /// What entries may cost in all (``HotEntry/cost``).
    let budgetBytes: Int
    /// The largest body kept.
    let maxEntryBytes: Int
    /// Hits counted in memory before they are handed to the store.
    static let hitBatch = 64

    /// Creates an empty cache.
    /// - Parameters:
    ///   - budgetBytes: the byte budget; 0 keeps nothing.
    ///   - maxEntryBytes: the largest body kept.
    init(budgetBytes: Int = 64 << 20, maxEntryBytes: Int = 4 << 20) {
        self.budgetBytes = max(0, budgetBytes)
        self.maxEntryBytes = min(max(0, maxEntryBytes), self.budgetBytes)
        // With the tier off nothing is offered or hit: the smallest sketch.
        state = Mutex(State(admission: HotAdmission(width: budgetBytes > 0 ? 1 << 15 : 8)))
    }

    /// The kept entry that answers a caller of a canonical key URL: for callers that accept gzip the gzip
    /// entry, else the identity form of an entry that does not vary (identity suits every caller; a
    /// variant kept for identity callers does not answer gzip callers, who have a variant of their own).
    /// The hit is counted for admission (`HotAdmission`) and marks the slot for a second chance.
    func entry(forURL url: String, gzip: Bool) -> HotEntry? {
        state.withLock { state in
            guard let index = state.slots.index(forKey: url) else { return nil }
            let slot = state.slots.values[index]
            let found: HotEntry?
            if !gzip {
                found = slot.identity
            } else if let kept = slot.gzip {
                found = kept
            } else {
                found = slot.identity.flatMap { $0.stored.varyNames.isEmpty ? $0 : nil }
            }
            if let found {
                state.admission.record(found.stored.key.leadingWord)
                if !slot.referenced { state.slots.values[index].referenced = true }
            }
            return found
        }
    }

    /// Whether a body of `bodyBytes` of an entry that varies on `names` can be kept at all: within the
    /// largest body, and varying on nothing or on `Accept-Encoding` alone (with the tier off, nothing is).
    func fits(bodyBytes: Int, varyingOn names: [String]) -> Bool {
        budgetBytes > 0 && bodyBytes <= maxEntryBytes && (names.isEmpty || names == ["accept-encoding"])
    }

    /// Counts a read of `key` from the store and says whether the tier takes it: when it `fits`, and either
    /// the tier has room for it or `key` was asked for more often lately than the entry it would evict
    /// (`victim`: the hand moves past the marked slots on the way, as the eviction would). Asked before a
    /// `HotEntry` is made, since making one may fill an in-memory file.
    func admits(_ key: CacheKey, bodyBytes: Int, varyingOn names: [String]) -> Bool {
        guard fits(bodyBytes: bodyBytes, varyingOn: names) else { return false }
        return state.withLock { state in
            state.admission.record(key.leadingWord)
            guard state.bytes + bodyBytes + HotEntry.overheadBytes > budgetBytes,
                let victim = Self.victim(&state)?.slot
            else { return true }
            // A URL kept in both forms is as popular as its more asked-for form.
            let kept = max(
                victim.identity.map { state.admission.frequency($0.stored.key.leadingWord) } ?? 0,
                victim.gzip.map { state.admission.frequency($0.stored.key.leadingWord) } ?? 0)
            return state.admission.frequency(key.leadingWord) > kept
        }
    }

    /// The slot eviction takes next, left at `orderHead`: the oldest unmarked one. Superseded elements of
    /// the order are passed over for good; a marked slot loses its mark and goes to the back. One search
    /// passes at most `secondChancesPerSearch` marked slots and then takes the next live one, marked or not:
    /// it runs under the lock every lookup takes, and a lap over a full tier of marked entries (tens of
    /// thousands of small ones) would stall one request for milliseconds.
    private static func victim(_ state: inout State) -> (url: String, slot: Slot)? {
        var passed = 0
        while state.orderHead < state.order.count {
            let (url, generation) = state.order[state.orderHead]
            if let index = state.slots.index(forKey: url), state.slots.values[index].generation == generation {
                guard state.slots.values[index].referenced, passed < secondChancesPerSearch else {
                    return (url, state.slots.values[index])
                }
                state.slots.values[index].referenced = false
                state.order.append((url, generation))
                passed += 1
            }
            state.orderHead += 1
        }
        return nil
    }

    /// The marked slots one victim search may pass (`victim`).
    static let secondChancesPerSearch = 32

    /// The number of entries and the bytes they cost (for tests and metrics).
    var usage: (entries: Int, bytes: Int) {
        state.withLock { state in
            (state.slots.values.reduce(0) { $0 + ($1.identity == nil ? 0 : 1) + ($1.gzip == nil ? 0 : 1) }, state.bytes)
        }
    }

    /// Keeps an entry under its stored URL (replacing one for the same callers), evicting victims
    /// (`victim`) beyond the budget. Entries too large, or varying on more than `Accept-Encoding`, are not kept.
    func insert(_ entry: HotEntry) {
        guard fits(bodyBytes: entry.bodyCount, varyingOn: entry.stored.varyNames), entry.cost <= budgetBytes
        else { return }
        let url = entry.stored.url
        state.withLock { state in
            var slot = state.slots[url] ?? Slot()
            let sibling = entry.variant == .gzip ? slot.identity : slot.gzip
            if let sibling, sibling.stored.key != entry.stored.key,
                sibling.stored.varyNames.isEmpty || entry.stored.varyNames.isEmpty
            {
                // Another response now answers this URL (not the other variant of a response that varies
                // on Accept-Encoding): the old forms must not outlive it.
                Self.forget(slot, in: &state)
                slot = Slot()
            }
            let replaced = entry.variant == .gzip ? slot.gzip : slot.identity
            if let replaced, replaced.stored.key != entry.stored.key { state.urls[replaced.stored.key] = nil }
            state.bytes += entry.cost - (replaced?.cost ?? 0)
            if entry.variant == .gzip { slot.gzip = entry } else { slot.identity = entry }
            state.nextGeneration += 1
            slot.generation = state.nextGeneration
            state.slots[url] = slot
            state.urls[entry.stored.key] = url
            // The others make room first, as CLOCK's hand does before a page takes the victim's place: were
            // the newcomer in the order already, a lap over marked entries would end at it. Only a slot that
            // alone outgrows the budget (both forms of one URL) is then evicted itself.
            Self.evict(&state, budget: budgetBytes)
            state.order.append((url, slot.generation))
            Self.evict(&state, budget: budgetBytes)
        }
    }

    /// Drops victims (`victim`) until the budget holds, and compacts the insertion order.
    private static func evict(_ state: inout State, budget: Int) {
        while state.bytes > budget, let victim = victim(&state) {
            state.orderHead += 1
            drop(victim.url, victim.slot, from: &state)
        }
        // Superseded elements pile up when the same URLs are kept again and again; rebuild when they
        // outnumber live ones, so the order stays proportional to what is kept.
        if (state.orderHead > 64 && state.orderHead * 2 > state.order.count)
            || state.order.count > 4 * state.slots.count + 64
        {
            state.order = state.order[state.orderHead...].filter { state.slots[$0.url]?.generation == $0.generation }
            state.orderHead = 0
        }
    }

    private static func drop(_ url: String, _ slot: Slot, from state: inout State) {
        state.slots[url] = nil
        forget(slot, in: &state)
    }

    /// Takes a slot's entries out of the byte count and the key index.
    private static func forget(_ slot: Slot, in state: inout State) {
        state.bytes -= slot.cost
        for entry in slot.entries { state.urls[entry.stored.key] = nil }
    }

    /// Drops the entries kept for a canonical key URL.
    func remove(url: String) {
        state.withLock { state in
            guard let slot = state.slots[url] else { return }
            Self.drop(url, slot, from: &state)
        }
    }

    /// Drops the entries of one key.
    func remove(_ key: CacheKey) {
        state.withLock { state in
            guard let url = state.urls[key], let slot = state.slots[url] else { return }
            Self.drop(url, slot, from: &state)
        }
    }

    /// Drops every entry whose stored metadata `matching` selects.
    func remove(where matching: (StoredEntry) -> Bool) {
        state.withLock { state in
            let doomed = state.slots.filter { _, slot in slot.entries.contains { matching($0.stored) } }
            for (url, slot) in doomed { Self.drop(url, slot, from: &state) }
        }
    }

    /// Counts a hit served from memory.
    /// - Returns: the hits to hand to the store now, when a batch is full.
    func countHit(_ entry: HotEntry) -> [(key: CacheKey, count: Int)]? {
        state.withLock { state in
            state.pendingHits[ObjectIdentifier(entry), default: (entry, 0)].count += 1
            state.pendingCount += 1
            guard state.pendingCount >= Self.hitBatch else { return nil }
            return Self.drainPending(&state)
        }
    }

    /// Takes every hit counted in memory and not yet handed to the store (at shutdown).
    /// - Returns: one count per entry; empty when nothing is pending.
    func takePendingHits() -> [(key: CacheKey, count: Int)] {
        state.withLock { Self.drainPending(&$0) }
    }

    /// The pending hits as one count per entry, leaving none pending.
    private static func drainPending(_ state: inout State) -> [(key: CacheKey, count: Int)] {
        let batch = state.pendingHits.values.map { ($0.entry.stored.key, $0.count) }
        state.pendingHits.removeAll(keepingCapacity: true)
        state.pendingCount = 0
        return batch
    }
}
