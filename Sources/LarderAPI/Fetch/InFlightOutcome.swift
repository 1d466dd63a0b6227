import CacheCore
import CachePolicy
import Upstream

/// What a shared origin fetch produced, handed to every caller waiting on it.
enum InFlightOutcome: Sendable {
    /// A response to relay: its head now, its body from the fetch's shared buffer
    /// (`InFlightBodySource`). `admission` says whether it is being stored and, if not, why.
    case response(OriginResponseHead, admission: StoreAdmission)
    /// The origin answered 304 to Larder's conditional request: the stored entry, freshened, answers.
    case revalidated(StoredEntry)
    /// The fetch failed before a response head.
    case failure(OriginError)
    /// This caller's wait for the head (`FetchConfiguration.waiterTimeout`) ran out; the fetch goes on for
    /// the others.
    case waitExpired
}
