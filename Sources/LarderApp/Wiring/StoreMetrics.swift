import CacheCore
import Metrics
import Storage

/// The SQLite store's figures for `/metrics`: entries and bytes from its O(1) stats row, the size
/// bound, the entries removed by eviction and by sweeps since start, the commit groups, and the write
/// backlog of `/fetch`.
struct StoreMetrics: MetricsSource {
    let store: SQLiteCacheStore
    /// Reads the bytes of fetched bodies waiting to be written (`FetchService.storeBacklogBytes`).
    var backlog: @Sendable () -> Int = { 0 }
    /// Reads how many misses wait for room in the backlog (`FetchService.storeBacklogWaiting`).
    var backlogWaiting: @Sendable () -> Int = { 0 }
    /// Reads the bytes the memory tier holds (`FetchService.memoryTierBytes`).
    var memoryTier: @Sendable () -> Int = { 0 }
    /// Reads the bytes bodies in flight hold (`FetchService.inFlightBytes`).
    var inFlight: @Sendable () -> Int = { 0 }

    /// Writes the store's gauges and removal counters.
    /// - Parameter text: the exposition being built.
    func write(to text: inout PrometheusText) {
        // A store that cannot be read leaves its gauges out rather than reporting a false 0.
        if let stats = try? store.stats() {
            text.family(
                "larder_store_entries", type: .gauge, help: "Entries in the cache store.", value: stats.entryCount)
            text.family(
                "larder_store_bytes", type: .gauge,
                help: "Bytes counted against the size bound: stored bodies plus a fixed overhead per entry.",
                value: stats.totalBytes)
            text.family(
                "larder_store_reclaim_bytes", type: .gauge,
                help: "Bytes of purged entries the store has yet to delete (counted in larder_store_bytes).",
                value: stats.reclaimingBytes)
            if let maxSize = stats.maxSize {
                text.family(
                    "larder_store_max_bytes", type: .gauge, help: "The size bound (--max-size).", value: maxSize)
            }
        }
        text.family(
            "larder_store_evictions_total", type: .counter,
            help: "Entries removed to stay within the size bound, oldest stored first, sparing those used lately.",
            value: store.evictedCount)
        text.family(
            "larder_store_swept_entries_total", type: .counter,
            help: "Entries removed by background sweeps (expired beyond their stale allowance).",
            value: store.sweptCount)
        text.family(
            "larder_store_commit_groups_total", type: .counter,
            help: "Transactions that wrote stored responses, each every response that finished while the last ran.",
            value: store.commitGroupCount)
        text.family(
            "larder_store_commit_group_entries_total", type: .counter,
            help: "Responses those transactions wrote; divided by larder_store_commit_groups_total, the mean group.",
            value: store.commitGroupEntryCount)
        text.family(
            "larder_store_key_filter_bytes", type: .gauge,
            help:
                "Bytes of the filters of keys the store may hold and of URLs that vary, which answer misses of URLs "
                + "never stored and lookups of URLs that do not vary.",
            value: store.keyFilterBytes)
        text.family(
            "larder_store_backlog_bytes", type: .gauge,
            help: "Bytes of fetched bodies waiting for the store writers, plus 10 KiB per fetch not yet committed.",
            value: backlog())
        text.family(
            "larder_store_backlog_waiting", type: .gauge,
            help: "Misses waiting for room in a full store backlog before they are sent to the origin.",
            value: backlogWaiting())
        text.family(
            "larder_memory_tier_bytes", type: .gauge,
            help: "Bytes the memory tier holds: bodies, fields and prepared heads (bounded by --hot-bytes).",
            value: memoryTier())
        text.family(
            "larder_in_flight_bytes", type: .gauge,
            help: "Bytes the bodies of origin fetches in flight hold in memory (bounded by --in-flight-bytes).",
            value: inFlight())
    }
}
