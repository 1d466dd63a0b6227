import CacheCore
import Synchronization

/// The fetches under way: by key for coalescing, and all of them for `GET /fetches`.
final class InFlightRegistry: Sendable {
    private struct State {
        var byKey: [CacheKey: InFlightFetch] = [:]
        var all: [Int: InFlightFetch] = [:]
        var nextID = 1
    }

    private let state = Mutex(State())

    /// The fetch under way for `key`, or a new one made by `make` and registered.
    /// - Parameters:
    ///   - key: the coalescing key.
    ///   - coalesce: `false` for fetches that must not be shared (bypass): always a new one.
    ///   - make: builds the fetch with its id; called under the registry's lock, so it must not block.
    /// - Returns: the fetch and whether it is new (the caller then starts it).
    func fetch(for key: CacheKey, coalesce: Bool, make: (Int) -> InFlightFetch) -> (InFlightFetch, isNew: Bool) {
        state.withLock { state in
            if coalesce, let existing = state.byKey[key] { return (existing, false) }
            let fetch = make(state.nextID)
            state.nextID += 1
            state.all[fetch.id] = fetch
            if coalesce { state.byKey[key] = fetch }
            return (fetch, true)
        }
    }

    /// Whether a coalescable fetch for `key` is under way.
    func contains(_ key: CacheKey) -> Bool { state.withLock { $0.byKey[key] != nil } }

    /// Forgets a fetch once its answer is stored (or failed); later misses start a new one.
    func remove(_ fetch: InFlightFetch) {
        state.withLock { state in
            state.all[fetch.id] = nil
            if state.byKey[fetch.order.key] === fetch { state.byKey[fetch.order.key] = nil }
        }
    }

    /// Stops handing out fetch `id` for `key` to new callers (it let go of its first bytes); it stays
    /// listed until it ends.
    func seal(key: CacheKey, id: Int) {
        state.withLock { state in
            if state.byKey[key]?.id == id { state.byKey[key] = nil }
        }
    }

    /// Stops handing out every coalescable fetch of a canonical URL (any `Vary` variant) to new callers:
    /// after an invalidation, a caller must not join a request that left before it. They stay listed
    /// until they end.
    /// - Parameter keyURL: the canonical URL the fetches' keys were made from.
    func seal(keyURL: String) {
        state.withLock { state in
            for (key, fetch) in state.byKey where fetch.order.keyURL == keyURL { state.byKey[key] = nil }
        }
    }

    /// Every fetch under way, oldest first.
    var all: [InFlightFetch] { state.withLock { $0.all.values.sorted { $0.id < $1.id } } }
}
