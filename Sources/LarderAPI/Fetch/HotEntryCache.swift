import CacheCore
import CachePolicy
import Foundation
import HTTPCore
import Synchronization

/// Small, recently served entries kept in memory with their body, so that a fresh hit on one is
/// answered on the connection's queue without a storage round trip (no thread hop at all).
///
/// Only whole identity bodies up to `maxEntryBytes` that do not vary are kept, within `budgetBytes`
/// (the oldest insertions go first). The store stays the truth: `HotInvalidatingStore` drops an entry
/// here whenever the store deletes, purges or updates it, and a fetch that stores a response drops
/// the URL's entry before committing. Hits served from memory are counted in the store in batches.
final class HotEntryCache: Sendable {
    /// One kept entry.
    struct Entry: Sendable {
        let stored: StoredEntry
        let facts: ResponseFacts
        let body: [UInt8]
        /// The stored headers as replayed (framing fields dropped, `Accept-Ranges` added).
        let headers: HTTPHeaders
    }

    private struct State {
        var entries: [CacheKey: Entry] = [:]
        var order: [CacheKey] = []
        var bytes = 0
        var pendingHits: [CacheKey: Int] = [:]
        var pendingCount = 0
    }

    private let state = Mutex(State())
    /// Bytes of bodies kept at most.
    let budgetBytes: Int
    /// The largest body kept.
    let maxEntryBytes: Int
    /// Hits counted in memory before they are handed to the store.
    static let hitBatch = 64

    init(budgetBytes: Int = 64 << 20, maxEntryBytes: Int = 1 << 20) {
        self.budgetBytes = budgetBytes
        self.maxEntryBytes = maxEntryBytes
    }

    /// The kept entry for a key.
    func entry(for key: CacheKey) -> Entry? { state.withLock { $0.entries[key] } }

    /// Keeps an entry (replacing one of the same key), evicting the oldest beyond the budget.
    func insert(_ entry: Entry) {
        guard entry.body.count <= maxEntryBytes, entry.stored.varyNames.isEmpty else { return }
        state.withLock { state in
            if let old = state.entries.updateValue(entry, forKey: entry.stored.key) {
                state.bytes -= old.body.count
            } else {
                state.order.append(entry.stored.key)
            }
            state.bytes += entry.body.count
            while state.bytes > budgetBytes, !state.order.isEmpty {
                let oldest = state.order.removeFirst()
                if let gone = state.entries.removeValue(forKey: oldest) { state.bytes -= gone.body.count }
            }
        }
    }

    /// Drops entries: one key, or every one `matching` selects.
    func remove(_ key: CacheKey) { remove { $0.key == key } }

    /// Drops every entry whose stored metadata `matching` selects.
    func remove(where matching: (StoredEntry) -> Bool) {
        state.withLock { state in
            let doomed = state.entries.filter { matching($0.value.stored) }.map(\.key)
            guard !doomed.isEmpty else { return }
            for key in doomed {
                if let gone = state.entries.removeValue(forKey: key) { state.bytes -= gone.body.count }
            }
            let doomedSet = Set(doomed)
            state.order.removeAll { doomedSet.contains($0) }
        }
    }

    /// Counts a hit served from memory.
    /// - Returns: the hits to hand to the store now, when a batch is full.
    func countHit(_ key: CacheKey) -> [CacheKey: Int]? {
        state.withLock { state in
            state.pendingHits[key, default: 0] += 1
            state.pendingCount += 1
            guard state.pendingCount >= Self.hitBatch else { return nil }
            let batch = state.pendingHits
            state.pendingHits = [:]
            state.pendingCount = 0
            return batch
        }
    }
}
