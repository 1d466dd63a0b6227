import CacheCore
import CachePolicy
import HTTPCore

/// What one fetch asks of the origin and on whose behalf: made by `FetchHandler.makeFetch` for a shared
/// miss, a background refresh, a bypass or a forward, and fixed for the fetch's life.
struct FetchOrder: Sendable {
    /// What becomes of the origin's answer.
    enum Purpose: Sendable {
        /// A `GET` whose answer may be stored, and is shared with the callers who join the fetch.
        case store
        /// The caller's own method (a bypassed `GET`, a `HEAD`, or an unsafe method as it came) with the
        /// content of one that sends some: relayed to that caller alone, never stored.
        case forward(HTTPMethod, content: [UInt8]?)
    }

    /// The key callers coalesce on (primary, or secondary when the store knew the `Vary` names).
    let key: CacheKey
    /// The URL fetched.
    let url: String
    /// The canonical URL keys are computed from.
    let keyURL: String
    /// The owning filter's decision.
    let decision: FilterDecision
    /// The stored entry the fetch revalidates, or a forwarded `HEAD`'s answer updates, if any.
    let stored: StoredEntry?
    /// The headers of the caller that started the fetch (they pick the `Vary` variant stored).
    let requestHeaders: HTTPHeaders
    let purpose: Purpose

    /// Whether the answer may be stored at all.
    var mayStore: Bool {
        if case .store = purpose { return true }
        return false
    }

    /// The method sent: `GET` for a fetch that stores (it always takes the whole body), else the caller's.
    var method: HTTPMethod {
        switch purpose {
        case .store: .get
        case .forward(let method, _): method
        }
    }

    /// The caller's content, for a forwarded method that sends one.
    var content: [UInt8]? {
        switch purpose {
        case .store: nil
        case .forward(_, let content): content
        }
    }
}
