import CacheCore
import CachePolicy
import HTTPCore
import Synchronization

/// The secondary keys (RFC 9111 §4.1) of recent lookups of URLs that vary, so that a repeated request
/// (every hit of a `Vary: Accept-Encoding` text) does not hash its URL and normalised field values
/// with SHA-256 again: that was about 6 400 of the 90 000 instructions of a 1 KiB hit from the store
/// (callgrind, `--hot-bytes 0`).
///
/// A secondary key is a pure function of the URL and the request's normalised values of the varying
/// fields, and the primary key stands for the URL (it is the URL's SHA-256), so nothing is ever
/// invalidated. Bounded: when `capacity` inputs are held the memo starts over. An input is kept at its
/// second miss within a short while (`MemoDoorkeeper`, by the key it gives).
final class VariantKeyMemo: Sendable {
    private struct Input: Hashable {
        let primaryKey: CacheKey
        let pairs: [Vary.KeyPair]
    }

    private struct State {
        var keys: [Input: CacheKey] = [:]
        var doorkeeper: MemoDoorkeeper
    }

    private let state: Mutex<State>
    /// The most inputs held.
    let capacity: Int

    /// Creates an empty memo.
    /// - Parameter capacity: the most inputs held; 0 holds none.
    init(capacity: Int = 4096) {
        self.capacity = max(0, capacity)
        state = Mutex(State(doorkeeper: MemoDoorkeeper(cellCount: capacity)))
    }

    /// The secondary key of a request for a URL whose responses vary on `names`.
    /// - Parameters:
    ///   - primaryKey: the URL's primary key (`CacheKey.make(canonicalURL: url)`).
    ///   - url: the URL the key is made from.
    ///   - names: the stored response's `Vary` names, not empty.
    ///   - requestHeaders: the request's header section.
    func key(primaryKey: CacheKey, url: String, names: [String], requestHeaders: HTTPHeaders) -> CacheKey {
        let pairs = Vary.keyPairs(names: names, requestHeaders: requestHeaders)
        let input = Input(primaryKey: primaryKey, pairs: pairs)
        if let known = state.withLock({ $0.keys[input] }) { return known }
        let key = CacheKey.make(canonicalURL: url, varyingHeaders: pairs.map { ($0.name, $0.value) })
        guard capacity > 0 else { return key }
        state.withLock { state in
            guard state.doorkeeper.admits(key.leadingWord) else { return }
            if state.keys.count >= capacity { state.keys.removeAll(keepingCapacity: true) }
            state.keys[input] = key
        }
        return key
    }

    /// How many inputs are held (for tests).
    var count: Int { state.withLock { $0.keys.count } }
}
