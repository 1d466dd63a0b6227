import CacheCore
import CachePolicy
import Upstream

/// What a shared origin fetch produced, handed to every caller waiting on it.
enum InFlightOutcome: Sendable {
    /// A response to relay: its head now, its body from the fetch's shared buffer
    /// (`InFlightBodySource`). `admission` says whether it is being stored and, if not, why.
    case response(OriginResponseHead, admission: StoreAdmission)
    /// The origin answered 304 to Larder's conditional request, or a matching 200 to a forwarded HEAD
    /// (RFC 9111 §4.3.5): the stored entry, freshened, answers; `forwardStatus` is the origin's status.
    case revalidated(StoredEntry, forwardStatus: Int)
    /// The fetch failed before a response head.
    case failure(OriginError)
    /// This caller's wait for the head (`FetchConfiguration.waiterTimeout`) ran out; the fetch goes on for
    /// the others.
    case waitExpired
}
