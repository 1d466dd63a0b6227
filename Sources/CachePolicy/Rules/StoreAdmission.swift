import CacheCore
public import HTTPCore

/// Whether a fetched response goes into the store, decided on its head: the rules of
/// [RFC 9111 §3](https://www.rfc-editor.org/rfc/rfc9111#section-3) (``Storability``), then the owning
/// filter's content types and byte bound. A validated image's content type is checked once it is
/// sniffed (``contentTypeRefusal(_:decision:)``), not on the label its origin gave.
public struct StoreAdmission: Sendable, Equatable {
    /// Whether it is stored (or, for a validated body, was stored).
    public var stored: Bool
    /// Why not, for `Cache-Status`'s `detail`; `nil` when stored.
    public var refusal: String?
    /// Whether the body failed image validation (or its pixel limit): such a relayed response is marked
    /// `X-Cache: BYPASS` rather than `MISS`, since it will never be stored whatever the caller does.
    public var invalidImage: Bool
    /// Whether RFC 9111 §3 lets a cache store the response at all, whether or not Larder stores it (a filter's
    /// content types or byte bound, the store's backlog, image validation are Larder's own choices). Only
    /// such a response may answer requests other than the one it was fetched for
    /// ([RFC 9111 §4](https://www.rfc-editor.org/rfc/rfc9111#section-4): "a response that is stored or
    /// storable"); a caller that collapsed onto one that is not forwards its own request.
    public var storable: Bool

    /// - Parameters:
    ///   - stored: whether it is stored.
    ///   - refusal: why not.
    ///   - invalidImage: whether the body failed image validation.
    ///   - storable: whether RFC 9111 §3 allows storing it.
    public init(stored: Bool, refusal: String? = nil, invalidImage: Bool = false, storable: Bool = true) {
        self.stored = stored
        self.refusal = refusal
        self.invalidImage = invalidImage
        self.storable = storable
    }

    /// A fetch that may not store at all (the filter's `bypass`, a forwarded method): nothing to explain, and
    /// the answer is its caller's alone.
    public static let bypass = StoreAdmission(stored: false, storable: false)

    /// The admission of a response head.
    /// - Parameters:
    ///   - facts: the response's facts (status, fields, governing directives), read with this cache's
    ///     target list (RFC 9213).
    ///   - requestHeaders: the request it answers.
    ///   - decision: the owning filter's decision.
    ///   - revalidating: whether it answers a revalidation of a stored entry: an origin error then never
    ///     replaces the entry (it may still be served stale).
    /// - Returns: stored, or refused with the reason.
    public static func evaluate(
        facts: ResponseFacts, requestHeaders: HTTPHeaders, decision: FilterDecision, revalidating: Bool
    ) -> StoreAdmission {
        let status = facts.status
        let responseHeaders = facts.headers
        if case .doNotStore(let reason) = Storability.evaluate(
            requestMethod: .get, requestHeaders: requestHeaders, facts: facts,
            ignoringResponseNoStore: decision.ignoreNoStore)
        {
            return StoreAdmission(stored: false, refusal: reason.rawValue, storable: false)
        }
        if revalidating, StaleIfError.errorStatuses.contains(status) {
            return StoreAdmission(stored: false, refusal: "origin error kept out of the store")
        }
        // The media type is read only for a filter that lists content types (most list none).
        if !decision.validateImage, !decision.contentTypes.isEmpty,
            let refusal = contentTypeRefusal(
                StoredEntry.mediaType(of: responseHeaders["Content-Type"]), decision: decision)
        {
            return StoreAdmission(stored: false, refusal: refusal)
        }
        if let limit = decision.maxBytes, let length = responseHeaders["Content-Length"].flatMap({ Int($0) }),
            length > limit
        {
            return StoreAdmission(stored: false, refusal: byteLimitRefusal(limit))
        }
        return StoreAdmission(stored: true)
    }

    /// Why the filter's `contentTypes` refuse a media type, or `nil` when they admit it (or list none).
    /// - Parameters:
    ///   - mediaType: the media type, lower-cased, without parameters.
    ///   - decision: the owning filter's decision.
    public static func contentTypeRefusal(_ mediaType: String?, decision: FilterDecision) -> String? {
        guard !decision.contentTypes.isEmpty,
            !decision.contentTypes.contains(where: { CacheEntryQuery.mediaType(mediaType, matches: $0) })
        else { return nil }
        return "content type '\(mediaType ?? "")' not admitted"
    }

    /// Why a body over the filter's `maxBytes` is not stored (on its declared length, or once it outgrows
    /// the bound while it arrives).
    public static func byteLimitRefusal(_ limit: Int) -> String {
        "larger than the filter's maxBytes \(limit)"
    }
}
