public import FoundationEssentials

/// What keeps a cache store within its bounds, apart from the requests: its figures (entry count and
/// bytes against the size bound) and the background sweep of what may no longer be served. The
/// maintenance timer sweeps through it; the figures go to the start-up line and `/metrics`.
///
/// Implementations are synchronous and thread-safe, and block on disk: run them off the connection
/// queues. Every method throws `CacheStoreError` only.
public protocol CacheMaintenanceStore: AnyObject, Sendable {
    /// Entry count and bytes, in O(1).
    /// - Returns: the figures.
    /// - Throws: `CacheStoreError` when the store cannot be read.
    func stats() throws -> CacheStoreStats

    /// Deletes entries past expiry plus stale allowance, writes pending hits and clears abandoned
    /// writes. Called from a background timer.
    /// - Parameter now: the clock's time.
    /// - Returns: how many entries were swept.
    /// - Throws: `CacheStoreError` when the store cannot be written.
    @discardableResult
    func sweep(now: Date) throws -> Int
}

/// Entry count and size, kept up to date with every change.
public struct CacheStoreStats: Sendable, Equatable {
    /// Number of entries (not counting purged ones waiting to be reclaimed).
    public var entryCount: Int
    /// Bytes counted against the size bound: stored bodies plus per-entry overhead, including the bytes
    /// of purged entries not yet reclaimed (`reclaimingBytes`), which the file still holds.
    public var totalBytes: Int
    /// The size bound, `nil` when unbounded.
    public var maxSize: Int?
    /// Entries a purge removed that are still in the file, waiting for the store to delete their rows
    /// and bodies (a store that deletes at once has none).
    public var reclaimingEntries: Int
    /// The bytes of `reclaimingEntries`, counted in `totalBytes`.
    public var reclaimingBytes: Int

    /// Creates the figures.
    public init(entryCount: Int, totalBytes: Int, maxSize: Int?, reclaimingEntries: Int = 0, reclaimingBytes: Int = 0) {
        self.entryCount = entryCount
        self.totalBytes = totalBytes
        self.maxSize = maxSize
        self.reclaimingEntries = reclaimingEntries
        self.reclaimingBytes = reclaimingBytes
    }
}
