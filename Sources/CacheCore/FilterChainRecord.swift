/// One persisted filter: its name and its definition as opaque JSON (the filter model lives in
/// `CachePolicy`; the store only keeps the text).
public struct FilterRecord: Sendable, Equatable {
    /// The filter's unique name.
    public var name: String
    /// The filter's JSON definition.
    public var json: String

    /// Creates a record.
    public init(name: String, json: String) {
        self.name = name
        self.json = json
    }
}

/// The persisted filter chain: an ordered list and a version bumped on every save.
public struct FilterChainRecord: Sendable, Equatable {
    /// The version, 0 before the first save.
    public var version: Int
    /// The filters in chain order.
    public var filters: [FilterRecord]

    /// Creates a chain record.
    public init(version: Int, filters: [FilterRecord]) {
        self.version = version
        self.filters = filters
    }

    /// Checks names for uniqueness.
    /// - Parameter filters: a candidate chain.
    /// - Throws: `CacheStoreError.duplicateFilterName` naming the first repeated name.
    public static func validate(_ filters: [FilterRecord]) throws {
        var seen = Set<String>()
        for filter in filters where !seen.insert(filter.name).inserted {
            throw CacheStoreError.duplicateFilterName(filter.name)
        }
    }
}
