import CacheCore
import Upstream

/// What a shared origin fetch produced, handed to every caller waiting on it.
enum InFlightOutcome: Sendable {
    /// A response to relay: its head now, its body from the fetch's shared buffer
    /// (`InFlightBodySource`). `admission` says whether it is being stored and, if not, why.
    case response(OriginResponseHead, admission: InFlightAdmission)
    /// The origin answered 304 to Larder's conditional request: the stored entry, freshened, answers.
    case revalidated(StoredEntry)
    /// The fetch failed before a response head.
    case failure(OriginError)
    /// This caller's wait for the head (`FetchConfiguration.waiterTimeout`) ran out; the fetch goes on for
    /// the others.
    case waitExpired
}

/// Whether a fetched response goes into the store.
struct InFlightAdmission: Sendable, Equatable {
    /// Whether it is stored (or, for a validated body, was stored).
    var stored: Bool
    /// Why not, for `Cache-Status`'s `detail`; `nil` when stored.
    var refusal: String?
    /// Whether the body failed image validation (or its pixel limit): Larder marks such a relayed
    /// response `X-Cache: BYPASS` rather than `MISS`, since it will never be stored whatever the caller does.
    var invalidImage = false

    static let bypass = InFlightAdmission(stored: false, refusal: nil)
}
