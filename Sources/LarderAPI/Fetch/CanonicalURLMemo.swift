import CacheCore
import CachePolicy
import Synchronization

/// The canonical form of recently requested `url` parameters, so that a repeated URL (every hit) is
/// neither parsed nor re-serialized nor hashed again: canonicalization with default options is a pure
/// function of the text, and was the largest single cost of a hot hit after the response head; the
/// primary key's SHA-256 was about 2 400 instructions of every hit from the store.
///
/// Bounded: when `capacity` texts are held the memo starts over, so memory stays fixed however many
/// distinct URLs arrive. A text is kept at its second canonicalization within a short while
/// (`MemoDoorkeeper`, by its URL's primary key), so requests spread over far more URLs than that do not
/// fill the memo and empty it again. Rejected texts are not kept (they are answered 400 and rarely repeat).
final class CanonicalURLMemo: Sendable {
    /// A canonical URL with its string's primary key.
    struct Entry: Sendable {
        let url: CanonicalURL
        /// `CacheKey.make(canonicalURL: string)`: the key of a URL no filter keys otherwise.
        let primaryKey: CacheKey

        /// The canonical URL's text.
        var string: String { url.string }
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var doorkeeper: MemoDoorkeeper
    }

    private let state: Mutex<State>
    /// The most texts held.
    let capacity: Int

    /// Creates an empty memo.
    /// - Parameter capacity: the most texts held; 0 holds none.
    init(capacity: Int = 4096) {
        self.capacity = max(0, capacity)
        state = Mutex(State(doorkeeper: MemoDoorkeeper(cellCount: capacity)))
    }

    /// The canonical form of `text` (default options), from the memo or computed and kept.
    /// - Parameter text: the `url` parameter, form-decoded.
    /// - Returns: the canonical URL and its string, or why the text is not a fetchable URL.
    func canonicalize(_ text: String) -> Result<Entry, URLRejection> {
        if let known = state.withLock({ $0.entries[text] }) { return .success(known) }
        switch URLCanonicalizer().canonicalize(text) {
        case .failure(let rejection):
            return .failure(rejection)
        case .success(let url):
            let entry = Entry(url: url, primaryKey: CacheKey.make(canonicalURL: url.string))
            guard capacity > 0 else { return .success(entry) }
            state.withLock { state in
                guard state.doorkeeper.admits(entry.primaryKey.leadingWord) else { return }
                if state.entries.count >= capacity { state.entries.removeAll(keepingCapacity: true) }
                state.entries[text] = entry
            }
            return .success(entry)
        }
    }

    /// How many texts are held (for tests).
    var count: Int { state.withLock { $0.entries.count } }
}
