/// Where the filter chain persists: its version and its filters in order, as opaque JSON (the filter model
/// lives in `CachePolicy`). The live chain (`FilterChainRegistry`) loads it at start and saves every change
/// through it; nothing else reads it.
///
/// Implementations are synchronous and thread-safe, and block on disk. Every method throws
/// `CacheStoreError` only.
public protocol FilterChainStore: AnyObject, Sendable {
    /// The persisted filter chain: its version and its filters in order, as opaque JSON.
    /// - Returns: version 0 and no filters when none was ever saved.
    /// - Throws: `CacheStoreError` when the store cannot be read.
    func loadFilterChain() throws -> FilterChainRecord

    /// Replaces the whole filter chain in one transaction and bumps its version.
    /// - Parameters:
    ///   - filters: the new chain in order; names must be unique.
    ///   - expectedVersion: when given, the save happens only if the stored version still is this one.
    /// - Returns: the chain as saved, with its new version.
    /// - Throws: `.versionConflict` when `expectedVersion` is stale, `.duplicateFilterName`, or a
    ///   storage error; nothing changes then.
    @discardableResult
    func saveFilterChain(_ filters: [FilterRecord], expectedVersion: Int?) throws -> FilterChainRecord
}
