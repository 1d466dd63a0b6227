public import CacheCore
public import HTTPCore
import Synchronization

/// The live filter chain: what `/fetch` decides with and `/filters` changes.
///
/// Reads take a snapshot of the current ``FilterChain`` under a lock held for a pointer copy. A change
/// is serialised with every other change, checked against the caller's precondition, saved through the
/// ``FilterChainStore`` in one transaction (with the version it started from, so a concurrent writer to the
/// same file cannot be overwritten), and only then published: the next request sees it, no restart
/// needed, and a failed save changes nothing. Saving blocks on the store, so call the mutating methods
/// off connection queues.
public final class FilterChainRegistry: FilterDecider {
    private let store: any FilterChainStore
    /// What happens to requests no filter owns.
    public let defaultPolicy: FilterDefaultPolicy
    private let current: Mutex<FilterChain>
    /// Held for the whole of a change (check, save, publish), never by readers.
    private let changes = Mutex<Void>(())

    /// Loads the chain from the store; a database that never held a chain (version 0, no filters) is
    /// given `initialFilters` (``FilterChain/defaultFilters`` unless a filters file seeds it) and saved at
    /// version 1.
    ///
    /// - Parameters:
    ///   - store: Where the chain is persisted.
    ///   - defaultPolicy: What happens to requests no filter owns.
    ///   - initialFilters: The chain a new database starts with.
    /// - Throws: `FilterChainError.corruptRecord` when a stored filter does not decode; the store's errors.
    public init(
        store: any FilterChainStore, defaultPolicy: FilterDefaultPolicy = .http,
        initialFilters: [FilterDefinition] = FilterChain.defaultFilters
    ) throws {
        self.store = store
        self.defaultPolicy = defaultPolicy
        var record = try store.loadFilterChain()
        if record.version == 0 && record.filters.isEmpty {
            record = try store.saveFilterChain(initialFilters.map(Self.record), expectedVersion: 0)
        }
        var filters: [FilterDefinition] = []
        for stored in record.filters {
            do {
                filters.append(try FilterDefinition.decode(json: Array(stored.json.utf8)))
            } catch {
                throw FilterChainError.corruptRecord(name: stored.name, error)
            }
        }
        current = Mutex(FilterChain(filters: filters, version: record.version, defaultPolicy: defaultPolicy))
    }

    /// The current chain.
    public var chain: FilterChain { current.withLock { $0 } }

    /// Decides a request with this method with the current chain.
    ///
    /// - Parameters:
    ///   - url: The target URL, canonicalized with default options.
    ///   - method: The request's method.
    ///   - headers: The caller's request headers.
    /// - Returns: The decision.
    public func decide(url: CanonicalURL, method: HTTPMethod, headers: HTTPHeaders) -> FilterDecision {
        chain.decide(url: url, method: method, headers: headers)
    }

    /// Changes the chain: applies `change` to the filter list, checks `precondition` against the current
    /// version (after `change`, whose refusals win: RFC 9110 §13.2.2), saves the result, then publishes it
    /// with the new version.
    ///
    /// - Parameters:
    ///   - precondition: Whether the change may proceed at this version (`If-Match`); `nil` always may.
    ///   - change: Edits the list; throws to refuse (nothing is saved).
    /// - Returns: The new chain.
    /// - Throws: `FilterChainError.preconditionFailed`, `.duplicateName`, whatever `change` throws, or the
    ///   store's error.
    @discardableResult
    public func update(
        precondition: ((Int) -> Bool)? = nil, _ change: (inout [FilterDefinition]) throws -> Void
    ) throws -> FilterChain {
        try changes.withLock { _ in
            let before = chain
            var filters = before.filters
            try change(&filters)
            var seen = Set<String>()
            for filter in filters where !seen.insert(filter.name).inserted {
                throw FilterChainError.duplicateName(filter.name)
            }
            // RFC 9110 §13.2.2: preconditions are ignored when the request would fail without them, so
            // a missing filter or a duplicate name answers 404 or 409 whatever If-Match says.
            if let precondition, !precondition(before.version) {
                throw FilterChainError.preconditionFailed(currentVersion: before.version)
            }
            let saved: FilterChainRecord
            do {
                saved = try store.saveFilterChain(filters.map(Self.record), expectedVersion: before.version)
            } catch CacheStoreError.versionConflict(let version) {
                throw FilterChainError.preconditionFailed(currentVersion: version)
            }
            let after = FilterChain(filters: filters, version: saved.version, defaultPolicy: defaultPolicy)
            current.withLock { $0 = after }
            return after
        }
    }

    private static func record(_ definition: FilterDefinition) -> FilterRecord {
        FilterRecord(name: definition.name, json: definition.canonicalJSON)
    }
}
