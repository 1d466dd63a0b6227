public import CacheCore
public import CachePolicy
public import Dispatch
public import FoundationEssentials
import Glibc
import HTTPCore
import HTTPServer
import Synchronization
public import Upstream

/// The `/fetch` service (DESIGN.md, "HTTP API"): answers `GET|HEAD /fetch?url=U` from the cache when
/// RFC 9111 allows and from the origin otherwise, coalescing concurrent misses, and lists the fetches
/// under way on `GET /fetches`.
///
/// | route | answer |
/// | --- | --- |
/// | `GET`, `HEAD /fetch?url=U` | the origin's (or the stored) response with `X-Cache`, `Cache-Status`, `X-Cache-Key`, `Age` (`FetchHandler`) |
/// | any other method on `/fetch?url=U` | forwarded with its body, never stored; a 2xx/3xx to an unsafe method invalidates the URL (RFC 9111 §4.4) |
/// | `GET /fetches` | JSON list of in-flight origin fetches, admin only (`FetchesHandler`) |
///
/// Store calls run on the `StorageExecutor`, origin callbacks on the origin client's thread, stores of
/// a fetched body on one of the `storeWriters` queues: no connection queue ever waits on disk or network.
public final class FetchService: Sendable {
    /// The store hits are served from and misses written to: the given store behind the invalidating
    /// wrapper of the in-memory hot entries. Give this one to every other API that changes entries
    /// (`CacheAPI`), so that a purge or delete also reaches memory.
    public let store: HotInvalidatingStore
    /// Where lookups and body reads run.
    public let executor: StorageExecutor
    /// The origin client (its address policy is the SSRF guard).
    public let client: OriginClient
    /// The filter chain's seam: who owns a request and how its response is kept.
    public let decider: any FilterDecider
    /// The time source for freshness (injected so tests never sleep).
    public let clock: @Sendable () -> Date
    /// Limits and names.
    public let configuration: FetchConfiguration
    /// Origin fetches, coalescing and image validation, counted for `/metrics` (register it there).
    public let metrics: FetchMetrics
    /// Told about every store write that failed (disk full, read-only file, I/O error), with the URL
    /// whose response was then served uncached; for the process log.
    public let onStoreFailure: @Sendable (_ url: String, _ error: any Error) -> Void
    let registry: InFlightRegistry
    let hot: HotEntryCache
    let canonicalURLs = CanonicalURLMemo()
    let variantKeys = VariantKeyMemo()
    /// The freshness facts of stored entries served recently.
    let storedFacts: StoredFactsMemo
    /// The response heads of stored entries served recently.
    let storedHeads = StoredHeadMemo()
    /// The stored images whose read validation passed in this process.
    let imageReads = ImageReadVerdicts()
    /// What each fetch in flight is given (not the service itself): the store writers, the backlog and
    /// the in-flight budget live here alone.
    let inFlight: InFlightDependencies

    /// Creates the service.
    /// - Parameters:
    ///   - store: the cache store.
    ///   - executor: runs the blocking store calls.
    ///   - client: fetches from origins.
    ///   - decider: the filter chain, or `DefaultFilterDecider`.
    ///   - clock: the time source.
    ///   - configuration: limits and names.
    ///   - onStoreFailure: told about each failed store write (the response is still served, uncached).
    public init(
        store: any CacheStore, executor: StorageExecutor, client: OriginClient,
        decider: any FilterDecider = DefaultFilterDecider(), clock: @escaping @Sendable () -> Date = Date.init,
        configuration: FetchConfiguration = FetchConfiguration(),
        onStoreFailure: @escaping @Sendable (_ url: String, _ error: any Error) -> Void = { _, _ in }
    ) {
        self.onStoreFailure = onStoreFailure
        let hot = HotEntryCache(
            budgetBytes: configuration.hotBudgetBytes, maxEntryBytes: configuration.hotMaxEntryBytes)
        self.hot = hot
        self.store = (store as? HotInvalidatingStore) ?? HotInvalidatingStore(wrapping: store, hot: hot)
        self.executor = executor
        self.client = client
        self.decider = decider
        self.clock = clock
        self.configuration = configuration
        storedFacts = StoredFactsMemo(targets: configuration.targetedCacheControl)
        let registry = InFlightRegistry()
        self.registry = registry
        metrics = FetchMetrics(inFlight: { registry.all.count })
        // Where fetched bodies are written, each fetch's writes in order on one of its queues. Two queues:
        // SQLite takes one writer at a time, and the second compresses the next chunk meanwhile. Utility
        // class, below the connections' and the lookups': on a busy CPU a response goes out before the
        // store work of the fetch that produced it.
        let storeWriters = StorageExecutor(width: 2, label: "larder.fetch.store", qos: .utility)
        inFlight = InFlightDependencies(
            client: client, store: self.store, hot: hot, executor: executor, storeWriters: storeWriters,
            backlog: StoreBacklog(limit: configuration.storeBacklogBytes, maxWait: configuration.storeBacklogWait),
            waiterClock: WaiterClock(wait: configuration.waiterTimeout),
            budget: InFlightBudget(limit: configuration.inFlightBytes), registry: registry, metrics: metrics,
            clock: clock, configuration: configuration, onStoreFailure: onStoreFailure)
    }

    /// Hands the hits counted in memory by the hot tier to the store (which still gathers them: flush the
    /// store after this). Call at shutdown, once the server has drained, so that no hit is lost.
    public func handOverHotHits() {
        let now = clock()
        for (key, count) in hot.takePendingHits() { store.recordHits(key, count: count, at: now) }
    }

    /// Waits until every origin fetch has finished and its response is stored (or refused), at most
    /// until `deadline`. Call at shutdown, once the server has drained: callers get their answers before
    /// the store has written them, and an exit right after the last answer would drop those writes.
    /// - Parameter deadline: when to stop waiting.
    /// - Returns: how many fetches were still under way at the deadline (0 when all finished).
    @discardableResult
    public func waitForStores(until deadline: DispatchTime) -> Int {
        while DispatchTime.now() < deadline {
            if registry.all.isEmpty { return 0 }
            usleep(10_000)
        }
        return registry.all.count
    }

    /// Bytes of fetched bodies waiting for the store writers, plus the overhead of each fetch not yet
    /// committed (the backlog that `FetchConfiguration.storeBacklogBytes` bounds), for `/metrics`.
    public var storeBacklogBytes: Int { inFlight.backlog.bytes }

    /// Misses waiting for room in a full store backlog before they are sent (`StoreBacklog.reserve`), for
    /// `/metrics`.
    public var storeBacklogWaiting: Int { inFlight.backlog.waitingCount }

    /// Bytes the bodies of fetches in flight hold in memory (what `--in-flight-bytes` bounds), for
    /// `/metrics`.
    public var inFlightBytes: Int { inFlight.budget.bytes }

    /// The most bytes bodies in flight held at once since start (for tests and benchmarks).
    public var inFlightPeakBytes: Int { inFlight.budget.peakBytes }

    /// Bytes the memory tier holds (bodies, fields and prepared heads; what `--hot-bytes` bounds), for
    /// `/metrics`.
    public var memoryTierBytes: Int { hot.usage.bytes }

    /// How many origin fetches are under way (for metrics and tests).
    public var inFlightCount: Int { registry.all.count }
}
