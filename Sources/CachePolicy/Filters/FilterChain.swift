public import HTTPCore

/// The ordered filters and their version: the first enabled filter whose request conditions all hold
/// owns a request; when none does, the default policy decides (DESIGN.md, "Filters").
///
/// A value: the registry swaps whole chains, so a request decided against one chain never sees half
/// of another. Deciding walks precompiled matchers and allocates nothing.
public struct FilterChain: FilterDecider {
    /// The version of the persisted chain this one was built from (bumped on every change).
    public let version: Int
    /// The filters, in order.
    public var filters: [FilterDefinition] { matchers.map(\.definition) }
    /// What happens to requests no filter owns.
    public let defaultPolicy: FilterDefaultPolicy
    let matchers: [FilterMatcher]

    /// The chain a new database starts with: ``FilterDefinition/images`` for GET and HEAD, then
    /// ``FilterDefinition/imagesReadOnly`` denying every other method on those URLs.
    public static let defaultFilters: [FilterDefinition] = [.images, .imagesReadOnly]

    /// Builds a chain.
    ///
    /// - Parameters:
    ///   - filters: The filters in order; names are expected to be unique (decoding and the registry check).
    ///   - version: The chain's version.
    ///   - defaultPolicy: What happens to requests no filter owns.
    public init(filters: [FilterDefinition], version: Int = 0, defaultPolicy: FilterDefaultPolicy = .http) {
        self.version = version
        self.defaultPolicy = defaultPolicy
        self.matchers = filters.indices.map { FilterMatcher(filters[$0], previous: $0 > 0 ? filters[$0 - 1] : nil) }
    }

    /// The decision of the first filter that owns a request with this method, or the default policy's.
    ///
    /// - Parameters:
    ///   - url: The target URL, canonicalized with default options.
    ///   - method: The request's method (a filter's `methods` condition).
    ///   - headers: The caller's request headers.
    /// - Returns: The decision.
    public func decide(url: CanonicalURL, method: HTTPMethod, headers: HTTPHeaders) -> FilterDecision {
        // A filter with the conditions of the one before it, which failed on one of them (not on its
        // method, nor for being disabled), fails as well: a chain that splits one set of URLs by method
        // costs one match for the requests outside that set, which are most of them.
        var failedOnSharedCondition = false
        for matcher in matchers {
            if failedOnSharedCondition && matcher.sharesConditionsWithPrevious { continue }
            guard let failure = matcher.firstFailure(url: url, method: method, headers: headers) else {
                return matcher.decision
            }
            failedOnSharedCondition = failure != .method && failure != .disabled
        }
        return defaultPolicy.decision
    }

    /// The filter with this name.
    ///
    /// - Parameter name: The name.
    /// - Returns: The definition, or `nil`.
    public func filter(named name: String) -> FilterDefinition? {
        matchers.first { $0.definition.name == name }?.definition
    }

    /// The chain as `GET /filters` answers it: `{"version":N,"filters":[...]}`.
    public var json: String { FilterDefinition.chainJSON(filters, version: version) }
}
