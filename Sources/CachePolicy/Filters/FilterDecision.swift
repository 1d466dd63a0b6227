public import HTTPCore

/// What the filter chain decided for one request: which filter owns it, what to do, and how the
/// response is judged and kept. `/fetch` acts on it; `/filters/explain` shows it.
///
/// This is the seam between the chain (`FilterChain`) and the fetch path (`FetchHandler`): the fetch path
/// only ever asks a `FilterDecider` and never looks at filter definitions itself.
public struct FilterDecision: Sendable, Equatable {
    /// What happens to a request a filter owns (DESIGN.md, "Filters").
    public enum Action: String, Sendable, Equatable {
        /// Fetch, and store what the response side admits.
        case cache
        /// Fetch, never store.
        case bypass
        /// Answer 403 without fetching.
        case deny
    }

    /// The owning filter's name; `nil` when no filter owns the request and the default policy applies.
    public var filterName: String?
    /// The action.
    public var action: Action
    /// How the URL becomes the cache key (`ignoreQuery`, `dropParams`).
    public var canonicalization: URLCanonicalizer.Options
    /// Whether the origin is asked for the key's URL (after `ignoreQuery` and `dropParams`) rather than
    /// the caller's: off by default, since presigned URLs (S3 `X-Amz-Signature`, CloudFront) need every
    /// parameter the caller sent; on for origins that must not see tracking parameters.
    public var fetchCanonicalURL: Bool
    /// Freshness overrides (`ttl`, `minTtl`, `maxTtl`, `staleIfError`, `staleWhileRevalidate`).
    public var overrides: PolicyOverrides
    /// Media-type patterns a stored response must match (`image/*`); empty admits any.
    public var contentTypes: [String]
    /// The largest body stored, in bytes; `nil` leaves only the global limit.
    public var maxBytes: Int?
    /// Whether the body must pass image validation to be stored, and again when served.
    public var validateImage: Bool
    /// Whether SVG counts as a valid image for `validateImage`.
    public var allowSVG: Bool
    /// Whether the filter stores responses the origin marked `no-store` (explicit opt-in only).
    public var ignoreNoStore: Bool
    /// Tags the filter adds to every response it stores (`EntryTags`).
    public var tags: [String]

    /// Creates a decision; the defaults are the plain RFC 9111 shared-cache policy.
    public init(
        filterName: String? = nil,
        action: Action = .cache,
        canonicalization: URLCanonicalizer.Options = .init(),
        overrides: PolicyOverrides = .none,
        contentTypes: [String] = [],
        maxBytes: Int? = nil,
        validateImage: Bool = false,
        allowSVG: Bool = false,
        ignoreNoStore: Bool = false,
        tags: [String] = [],
        fetchCanonicalURL: Bool = false
    ) {
        self.filterName = filterName
        self.action = action
        self.canonicalization = canonicalization
        self.overrides = overrides
        self.contentTypes = contentTypes
        self.maxBytes = maxBytes
        self.validateImage = validateImage
        self.allowSVG = allowSVG
        self.ignoreNoStore = ignoreNoStore
        self.tags = tags
        self.fetchCanonicalURL = fetchCanonicalURL
    }

    /// The default policy `http`: no filter owns the request, RFC 9111 rules decide.
    public static let defaultHTTP = FilterDecision()

    /// The URL a response is keyed by when this filter shapes keys (`ignoreQuery`, `dropParams`): `text`
    /// canonicalized again with its options. `nil` when it has none (the plain canonical URL is the key),
    /// so that `/fetch` and a purge by URL agree on keys from one rule.
    /// - Parameter text: the URL as given.
    public func keyedURL(for text: String) -> String? {
        guard canonicalization != URLCanonicalizer.Options(),
            case .success(let keyed) = URLCanonicalizer(options: canonicalization).canonicalize(text)
        else { return nil }
        return keyed.string
    }

    /// The default policy `bypass`: no filter owns the request, nothing is stored.
    public static let defaultBypass = FilterDecision(action: .bypass)
}

/// Decides which filter owns a request. Implemented by the filter chain; the fetch path calls it once
/// per request, so it must be cheap and must not block.
public protocol FilterDecider: Sendable {
    /// The decision for a request to `url` (canonicalized without filter options) with this method
    /// (filters' `methods` condition), carrying the caller's `headers`.
    ///
    /// - Parameters:
    ///   - url: The target URL, canonicalized with default options.
    ///   - method: The request's method.
    ///   - headers: The caller's request headers (e.g. `User-Agent`).
    /// - Returns: The owning filter's decision, or the default policy's.
    func decide(url: CanonicalURL, method: HTTPMethod, headers: HTTPHeaders) -> FilterDecision
}

extension FilterDecider {
    /// The decision for a GET of `url` carrying the caller's `headers`.
    ///
    /// - Parameters:
    ///   - url: The target URL, canonicalized with default options.
    ///   - headers: The caller's request headers.
    /// - Returns: The owning filter's decision, or the default policy's.
    public func decide(url: CanonicalURL, headers: HTTPHeaders) -> FilterDecision {
        decide(url: url, method: .get, headers: headers)
    }
}

/// A decider with no filters: every request gets the same default decision.
public struct DefaultFilterDecider: FilterDecider {
    /// The decision every request gets.
    public var decision: FilterDecision

    /// Creates a decider that always answers `decision`.
    public init(_ decision: FilterDecision = .defaultHTTP) {
        self.decision = decision
    }

    public func decide(url: CanonicalURL, method: HTTPMethod, headers: HTTPHeaders) -> FilterDecision {
        decision
    }
}
