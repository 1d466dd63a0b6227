import CacheCore
import CachePolicy
import FoundationEssentials
import HTTPCore
import Synchronization
import Upstream

/// What a fetch in flight works with: the origin client, the store and its writers, the memory it may
/// hold, the registry it leaves when done, and the counters it reports to. A value made once by
/// `FetchService`: a fetch sees these parts and nothing that leads back to the handler that started it,
/// so the flow goes one way (handler → fetch → store).
struct InFlightDependencies: Sendable {
    let client: OriginClient
    /// The store, behind the wrapper that keeps the memory tier in step.
    let store: HotInvalidatingStore
    /// The memory tier, told when an entry is replaced.
    let hot: HotEntryCache
    /// Where read-backs of bodies being written run.
    let executor: StorageExecutor
    /// Where bodies are written, each fetch on the queue it was given.
    let storeWriters: StorageExecutor
    let backlog: StoreBacklog
    /// The deadlines of the callers waiting on any fetch.
    let waiterClock: WaiterClock
    let budget: InFlightBudget
    let registry: InFlightRegistry
    let metrics: FetchMetrics
    let clock: @Sendable () -> Date
    let configuration: FetchConfiguration
    /// Told about each failed store write (the response is still served, uncached).
    let onStoreFailure: @Sendable (_ url: String, _ error: any Error) -> Void

    /// Counts and reports a failed store write.
    func recordStoreFailure(url: String, error: any Error) {
        metrics.storeWriteFailed()
        onStoreFailure(url, error)
    }

    /// Gives an entry about to be stored its tags: the origin's `Surrogate-Key` and `Cache-Tag` fields and
    /// the owning filter's `tags`, bounded (`EntryTags`; what is dropped is counted in
    /// `larder_tags_dropped_total`). The tag fields leave the stored headers unless `forwardTagHeaders`.
    func tag(_ entry: inout StoredEntry, responseHeaders: HTTPHeaders, filterTags: [String]) {
        let tags = EntryTags(headers: responseHeaders, filterTags: filterTags)
        entry.tags = tags.tags
        if tags.dropped > 0 { metrics.tagsDropped(tags.dropped) }
        configuration.hideTagFields(&entry.headers)
    }
}
