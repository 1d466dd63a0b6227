import Dispatch
import HTTPCore
public import HTTPServer
public import LarderAPI
public import Logging
import Metrics
import Storage
import Upstream

/// Builds what `larder serve` runs. The integration point for the store, the origin client and the
/// API handlers as they arrive: add them here, keep `ServeCommand` about flags and process life.
public enum LarderWiring {
    /// What `serve` runs: the root responder, the server that answers with it, and what must happen once
    /// that server has drained.
    public struct Wired: Sendable {
        /// The router with all routes.
        public let responder: any HTTPResponder
        /// `/readyz`; `makeServer` attaches the server to it, so that a drain makes it 503.
        let readiness: ReadinessHandler
        /// Who may use the admin API and `/fetch`, as in force (for the start-up lines).
        public let admin: AdminAccess
        /// Who may use `/fetch`, as in force.
        public let fetchAccess: FetchAccess
        /// Re-reads the key and token files and swaps both policies (`serve` calls it on SIGHUP).
        public let accessReloader: AccessReloader
        /// What `/metrics` exposes; `makeServer` feeds its HTTP group.
        let metrics: ServeMetrics
        /// Writes the access log (`larder.access`, a part of the wiring's logger); `nil` when it is off.
        let accessLogger: AccessLogger?
        /// The shutdown step, after the server drained: writes what is still only in memory (hit counts of
        /// the hot tier and the store) to the database, then stops what the wiring started besides the
        /// server (the maintenance sweep, the origin client). The store closes when the last route holding
        /// it is released.
        public let finish: @Sendable () -> Void
        /// The bytes the write backlog and the bodies in flight hold now: the transient memory the settings
        /// bound, which `serve` watches to give the heap back when it drains (`ProcessMemory`).
        public let transientBytes: @Sendable () -> Int

        /// The server `serve` runs: answering with `responder`, attached to `/readyz` and the HTTP metrics,
        /// every access record counted for `/metrics` and logged when the access log is on.
        /// - Parameters:
        ///   - configuration: the listening settings (`ListeningSettings.serverConfiguration`).
        ///   - onError: told about socket errors the server cannot answer.
        /// - Returns: the server, not started.
        public func makeServer(
            configuration: HTTPServerConfiguration, onError: (@Sendable (SocketError) -> Void)? = nil
        ) -> HTTPServer {
            let server = HTTPServer(
                configuration: configuration, responder: responder,
                accessLog: metrics.accessRecordSink(accessLogger: accessLogger), onError: onError)
            metrics.http.attach(server)
            readiness.attach(server)
            return server
        }
    }

    /// The responder for every request, and the shutdown step that goes with it.
    /// - Parameters:
    ///   - settings: the resolved settings.
    ///   - logger: the process logger; the wiring's parts log through parts of it (`Logger.part`).
    /// - Returns: the root responder and its shutdown step.
    /// - Throws: when a dependency (the database) cannot be opened.
    public static func makeResponder(settings: ServeSettings, logger: Logger) throws -> Wired {
        // What `/metrics` exposes: the fetch and store groups are registered below, the HTTP group by
        // `makeServer`.
        let metrics = ServeMetrics()
        // The filters file first: an invalid one stops the start before any database is created.
        let declared = try settings.filters.file.map { path throws in try FiltersFile.load(path: path) }
        // Likewise unreadable certificate files: better no start than every https fetch failing.
        let tls = settings.fetch.originTLS
        try tls.validate()
        warnIfCAFileReplacesTheSystemStore(tls, logger: logger)
        // One policy for every admin route: the operator page's login sessions must be known to all of them.
        // Secrets from files are read here, before the store exists: a bad file stops the start.
        let (access, fetchAccess, accessReloader) = try makeAccess(settings: settings, logger: logger)
        metrics.registry.register(fetchAccess.metrics)
        metrics.registry.register(accessReloader)
        let store = try openCacheStore(settings: settings, logger: logger)
        let maintenance = startMaintenance(store: store, settings: settings, logger: logger)
        // The filter chain decides for /fetch; explain judges addresses with the fetch path's policy.
        let filters = try makeFiltersAPI(
            store: store, settings: settings, addressPolicy: AddressPolicy(allowNetworks: settings.fetch.allowNetworks),
            declared: declared, logger: logger)
        let registry = filters.registry
        // One set of storage queues for /fetch and /cache: a thread pool per route family would only
        // multiply the threads blocking on one SQLite writer. /cache changes entries through the fetch
        // service's store, so deletes and purges reach the in-memory hot entries too.
        let executor = StorageExecutor()
        let fetch = makeFetchService(
            store: store, executor: executor, settings: settings.fetch, decider: registry,
            listening: (settings.listening.host, settings.listening.port), metrics: metrics.registry, logger: logger)
        let cache = makeCacheAPI(store: fetch.store, executor: executor, decider: registry, logger: logger)
        metrics.registry.register(cache.purgeMetrics)
        metrics.registry.register(
            StoreMetrics(
                store: store, backlog: { fetch.storeBacklogBytes },
                backlogWaiting: { fetch.storeBacklogWaiting }, memoryTier: { fetch.memoryTierBytes },
                inFlight: { fetch.inFlightBytes }))
        let readiness = ReadinessHandler(service: fetch, storeProbe: { try store.probeWrite() })
        // Every route, in the one table; the operator page shows the admin routes in a browser, under the
        // same policy. A scrape is public like /livez and /readyz by default: it names no URL, key or client.
        let routes = LarderRoutes(
            access: access, filters: filters, fetch: fetch, fetchAccess: fetchAccess, cache: cache, operatorPage: true,
            metrics: (
                MetricsHandler(registry: metrics.registry, executor: executor), settings.admin.metricsAccess == .public
            ),
            readiness: readiness)
        let finish: @Sendable () -> Void = {
            // Callers are answered before their responses are written: the store gets the same grace to
            // finish those writes, so that a response answered before SIGTERM is not lost by the exit.
            let unfinished = fetch.waitForStores(until: .now() + settings.listening.shutdownGrace)
            if unfinished > 0 {
                logger.warning(
                    "origin fetches still running at exit are not stored", metadata: ["count": "\(unfinished)"])
            }
            fetch.handOverHotHits()
            do {
                try store.flushHits()
                // Then the WAL copied into the file and emptied, so that the next start has nothing to
                // recover from it, and an unsynced file synced; only when every store finished (a stuck
                // writer would hold the exit), and without waiting for another process reading or writing
                // the file.
                if unfinished == 0 { try store.shutDown() }
            } catch {
                logger.error("hit counts or the WAL not written at shutdown", metadata: ["error": "\(error)"])
            }
            maintenance?.cancel()
            fetch.client.shutdown()
        }
        let accessLogger =
            settings.logging.accessLog
            ? AccessLogger(format: settings.logging.format, logger: logger.part("larder.access")) : nil
        return Wired(
            responder: routes.makeRouter(), readiness: readiness, admin: access, fetchAccess: fetchAccess,
            accessReloader: accessReloader, metrics: metrics, accessLogger: accessLogger, finish: finish,
            transientBytes: { fetch.storeBacklogBytes + fetch.inFlightBytes })
    }

    /// `--origin-ca-file` keeps the system store through libcurl's CA directory; a libcurl built without
    /// one (not Debian's) would trust the file alone, which the operator must hear about.
    private static func warnIfCAFileReplacesTheSystemStore(_ tls: OriginTLS, logger: Logger) {
        guard tls.caFile != nil, !tls.trustsOnlyCAFile, CurlDefaults.certificateStore.directory == nil else { return }
        logger.warning(
            "libcurl has no CA directory: --origin-ca-file replaces the system store instead of adding to it",
            metadata: ["systemBundle": "\(CurlDefaults.certificateStore.file ?? "none")"])
    }
}
