/// One filter of the chain, as operators write it in JSON (DESIGN.md, "Filters"): a name, request
/// conditions that decide whether it owns a request, an action, and the response-side, freshness and
/// key rules that apply to the requests it owns.
///
/// Every condition given must hold; a condition left out holds for every request. Build one in code
/// or with ``decode(json:path:defaultName:)``; ``canonicalJSON`` writes it back with keys in a fixed
/// order and defaults left out.
public struct FilterDefinition: Sendable, Equatable {
    /// How a header condition compares the caller's field value (case-sensitively, after trimming
    /// surrounding whitespace).
    public enum HeaderComparison: String, Sendable, Equatable, CaseIterable {
        /// The value contains the text.
        case contains
        /// The value is exactly the text.
        case equals
        /// The value starts with the text.
        case prefix
    }

    /// A condition on one request header: it holds when any line of the field satisfies it, and
    /// never when the field is absent.
    public struct HeaderCondition: Sendable, Equatable {
        /// The field name as written (matched case-insensitively).
        public var name: String
        /// How the value is compared.
        public var comparison: HeaderComparison
        /// The text compared with.
        public var value: String

        /// Creates a condition.
        ///
        /// - Parameters:
        ///   - name: The field name.
        ///   - comparison: How the value is compared.
        ///   - value: The text compared with.
        public init(name: String, comparison: HeaderComparison, value: String) {
            self.name = name
            self.comparison = comparison
            self.value = value
        }
    }

    /// The request conditions; an empty list means "any".
    public struct Match: Sendable, Equatable {
        /// Schemes, lower-case (`http`, `https`).
        public var schemes: [String]
        /// Host globs, lower-case (`*.example.com`).
        public var hosts: [String]
        /// File extensions without the dot, lower-case; matched case-insensitively on the last path segment.
        public var extensions: [String]
        /// A prefix the canonical path must start with (case-sensitive, as paths are).
        public var pathPrefix: String?
        /// Header conditions, in the order written.
        public var headers: [HeaderCondition]
        /// Request methods, as case-sensitive tokens (`GET`, `HEAD`); empty matches any method, those
        /// Larder never heard of included.
        public var methods: [String]

        /// Creates conditions; the defaults match every request.
        public init(
            schemes: [String] = [], hosts: [String] = [], extensions: [String] = [], pathPrefix: String? = nil,
            headers: [HeaderCondition] = [], methods: [String] = []
        ) {
            self.schemes = schemes
            self.hosts = hosts
            self.extensions = extensions
            self.pathPrefix = pathPrefix
            self.headers = headers
            self.methods = methods
        }
    }

    /// The filter's unique name: 1 to 64 of `A-Z a-z 0-9 . _ -`.
    public var name: String
    /// Whether the filter takes part in matching; a disabled filter is kept but skipped.
    public var enabled: Bool
    /// The request conditions.
    public var match: Match
    /// What happens to the requests it owns.
    public var action: FilterDecision.Action
    /// Media-type patterns a stored response must match (`image/*`, `text/html`); empty admits any.
    public var contentTypes: [String]
    /// The largest body stored, in bytes.
    public var maxBytes: Int?
    /// Whether bodies must pass image validation (`"validate": "image"`).
    public var validateImage: Bool
    /// Whether SVG counts as an image for validation.
    public var allowSVG: Bool
    /// What the filter says of freshness, in seconds: `ttl` (replaces the origin's lifetime), `minTtl` and
    /// `maxTtl` (clamp it), `staleIfError`, `staleWhileRevalidate` and `staleIfDisconnected` (how long past
    /// expiry a stored response may answer; the last replaces `--stale-if-disconnected`, 0 turns it off for
    /// this filter). The heuristic's knobs keep their defaults: no filter member sets them.
    public var overrides: PolicyOverrides
    /// Whether the query is left out of the cache key.
    public var ignoreQuery: Bool
    /// Globs of query parameter names left out of the cache key (`utm_*`).
    public var dropParams: [String]
    /// Whether responses marked `no-store` by the origin are stored anyway (explicit opt-in only).
    public var ignoreNoStore: Bool
    /// Whether the origin gets the key's URL, without the parameters `ignoreQuery` and `dropParams` leave
    /// out, instead of the caller's (``FilterDecision/fetchCanonicalURL``).
    public var fetchCanonicalURL = false
    /// Tags every response this filter stores carries, besides the origin's (`EntryTags`), for
    /// `DELETE /cache?tag=`.
    public var tags: [String] = []

    /// Creates a definition; the defaults are an enabled `cache` filter that matches everything and
    /// changes nothing.
    public init(
        name: String, enabled: Bool = true, match: Match = Match(), action: FilterDecision.Action = .cache,
        contentTypes: [String] = [], maxBytes: Int? = nil, validateImage: Bool = false, allowSVG: Bool = false,
        ttl: Int64? = nil, minTtl: Int64? = nil, maxTtl: Int64? = nil, staleIfError: Int64? = nil,
        staleWhileRevalidate: Int64? = nil, staleIfDisconnected: Int64? = nil, ignoreQuery: Bool = false,
        dropParams: [String] = [], ignoreNoStore: Bool = false
    ) {
        self.name = name
        self.enabled = enabled
        self.match = match
        self.action = action
        self.contentTypes = contentTypes
        self.maxBytes = maxBytes
        self.validateImage = validateImage
        self.allowSVG = allowSVG
        self.overrides = PolicyOverrides(
            ttl: ttl, minTtl: minTtl, maxTtl: maxTtl, staleIfError: staleIfError,
            staleWhileRevalidate: staleWhileRevalidate, staleIfDisconnected: staleIfDisconnected)
        self.ignoreQuery = ignoreQuery
        self.dropParams = dropParams
        self.ignoreNoStore = ignoreNoStore
    }

    /// The extensions of the default image filters.
    static let imageExtensions = ["jpg", "jpeg", "png", "gif", "tif", "tiff", "bmp", "ico", "webp", "avif"]

    /// The first filter every new database starts with: GET and HEAD of images over http(s) by
    /// extension, validated, and stored only when the response is an image.
    public static let images = FilterDefinition(
        name: "images",
        match: Match(schemes: ["http", "https"], extensions: imageExtensions, methods: ["GET", "HEAD"]),
        contentTypes: ["image/*"], validateImage: true)

    /// The second: every other method on the same URLs is denied (403, nothing sent), so that no caller
    /// can drop stored images with the invalidation an unsafe method causes (RFC 9111 §4.4).
    public static let imagesReadOnly = FilterDefinition(
        name: "images-read-only", match: Match(schemes: ["http", "https"], extensions: imageExtensions),
        action: .deny)

    /// What `/fetch` does with a request this filter owns.
    public var decision: FilterDecision {
        FilterDecision(
            filterName: name, action: action,
            canonicalization: URLCanonicalizer.Options(
                ignoreQuery: ignoreQuery, dropParams: dropParams.map { GlobPattern($0) }),
            overrides: overrides,
            contentTypes: contentTypes, maxBytes: maxBytes, validateImage: validateImage, allowSVG: allowSVG,
            ignoreNoStore: ignoreNoStore, tags: tags, fetchCanonicalURL: fetchCanonicalURL)
    }
}
