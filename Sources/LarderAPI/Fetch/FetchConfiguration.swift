public import CachePolicy
public import ImageSniffing

/// How `/fetch` behaves beyond what the origin client and the filter chain decide; set once at start.
public struct FetchConfiguration: Sendable {
    /// Larder's pseudonym in `Via` (RFC 9110 §7.6.3): a request that already carries it is a loop (508).
    public var viaName: String
    /// The cache's name in `Cache-Status` (RFC 9211 §2).
    public var cacheName: String
    /// The largest body fetched, in bytes; also the bound of one in-flight fetch's shared buffer.
    public var maxObjectBytes: Int
    /// Callers that may join one in-flight fetch; more are answered 503.
    public var maxWaiters: Int
    /// How long a caller waits for a shared fetch's response head before it is answered 504.
    public var waiterTimeout: Duration
    /// How long past expiry an entry with a validator stays stored so that it can still be revalidated.
    public var revalidationAllowance: Double
    /// How long past expiry, in seconds, a stored response may answer when the origin cannot be reached
    /// (RFC 9111 §4.2.4, `--stale-if-disconnected`); a filter's `staleIfDisconnected` replaces it, 0 turns
    /// it off. Entries that may be served so are kept that long past expiry.
    public var staleIfDisconnected: Int64
    /// The bounds image validation applies on admission and on read (`--max-image-pixels`): an image
    /// over them is relayed but not stored, as any image that fails validation.
    public var imageLimits: ImageValidationLimits
    /// What the in-memory hot tier may hold, in bytes (bodies, fields and prepared heads); 0 turns it off.
    public var hotBudgetBytes: Int
    /// The largest body the hot tier keeps; it is read whole on its first hit instead of streamed.
    public var hotMaxEntryBytes: Int
    /// How many bytes of fetched bodies may wait to be written to the store. Callers are answered as the
    /// origin's bytes arrive and the store writes behind them, so under a flood of misses the writes fall
    /// behind; past this backlog a new miss waits for room before it is sent (`StoreBacklog`), up to
    /// `storeBacklogWait`. Default 64 MiB.
    public var storeBacklogBytes = 64 << 20
    /// How long a miss waits for room in a full store backlog before it is sent anyway; its response is
    /// then relayed but not stored unless the store caught up by its head (`Cache-Status` says so).
    /// Default 1 s.
    public var storeBacklogWait: Duration = .seconds(1)
    /// What the bodies of fetches in flight may hold in memory, all together (`InFlightBudget`): past a
    /// fetch's share its origin is paused until its callers and the store writer catch up.
    public var inFlightBytes: Int
    /// Whether the origin's tag fields (`Surrogate-Key`, `Cache-Tag`) reach callers (`--forward-tag-headers`);
    /// by default they are read into the entry's tags and dropped, as Fastly and Cloudflare do.
    public var forwardTagHeaders = false
    /// The targeted cache-control fields this cache obeys, most applicable first (`--targeted-cache-control`,
    /// RFC 9213): read wherever a response's directives are (storing, freshness, serving, revalidating).
    /// Default `CDN-Cache-Control` alone.
    public var targetedCacheControl = TargetedCacheControl.standard

    /// Creates a configuration.
    /// - Parameters:
    ///   - viaName: the `Via` pseudonym, default `larder`.
    ///   - cacheName: the `Cache-Status` name, default `Larder`.
    ///   - maxObjectBytes: body bound, default 256 MiB.
    ///   - maxWaiters: callers per shared fetch, default 1024.
    ///   - waiterTimeout: head wait of a joined caller, default 30 s.
    ///   - revalidationAllowance: seconds a stale entry with a validator is kept, default one day.
    ///   - maxImagePixels: the largest width × height image validation accepts, default 64 Mi pixels.
    ///   - hotBudgetBytes: the hot tier's byte budget, default 64 MiB.
    ///   - hotMaxEntryBytes: the largest body kept in memory, default 4 MiB.
    ///   - staleIfDisconnected: seconds a stale entry may answer when the origin is unreachable, default
    ///     one day.
    ///   - inFlightBytes: memory for bodies being fetched, default 64 MiB.
    public init(
        viaName: String = "larder", cacheName: String = "Larder", maxObjectBytes: Int = 256 << 20,
        maxWaiters: Int = 1024, waiterTimeout: Duration = .seconds(30), revalidationAllowance: Double = 86_400,
        maxImagePixels: Int = ImageValidationLimits.default.maxPixels, hotBudgetBytes: Int = 64 << 20,
        hotMaxEntryBytes: Int = 4 << 20, staleIfDisconnected: Int64 = 86_400, inFlightBytes: Int = 64 << 20
    ) {
        self.viaName = viaName
        self.cacheName = cacheName
        self.maxObjectBytes = max(1, maxObjectBytes)
        self.maxWaiters = max(1, maxWaiters)
        self.waiterTimeout = waiterTimeout
        self.revalidationAllowance = revalidationAllowance
        self.imageLimits = ImageValidationLimits(maxPixels: max(1, maxImagePixels))
        self.hotBudgetBytes = max(0, hotBudgetBytes)
        self.hotMaxEntryBytes = max(0, hotMaxEntryBytes)
        self.staleIfDisconnected = max(0, staleIfDisconnected)
        self.inFlightBytes = max(1, inFlightBytes)
    }
}
