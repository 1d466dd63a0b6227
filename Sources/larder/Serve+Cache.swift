import CacheCore
import CachePolicy
import HTTPServer
import LarderAPI
import LarderApp
import Logging
import Storage

extension LarderWiring {
    /// Opens the SQLite cache store at `--db`, bounded by `--max-size`.
    /// - Parameters:
    ///   - settings: the resolved settings.
    ///   - logger: the process logger.
    /// - Returns: the store.
    /// - Throws: `CacheStoreError` when the file cannot be opened or migrated.
    static func openCacheStore(settings: ServeSettings, logger: Logger) throws -> SQLiteCacheStore {
        let store = try SQLiteCacheStore(path: settings.store.databasePath, maxSize: settings.store.maxSize)
        let stats = try store.stats()
        // Debug, not info: the first info line of `serve` is "listening on", which scripts and the
        // server's process tests wait for.
        logger.debug(
            "cache store open",
            metadata: [
                "path": "\(settings.store.databasePath)", "entries": "\(stats.entryCount)",
                "bytes": "\(stats.totalBytes)",
                "maxSize": "\(settings.store.maxSize.map(String.init) ?? "none")",
            ])
        return store
    }

    /// Mounts `/cache` behind the admin guard (`--admin-token`, else loopback clients only).
    /// - Parameters:
    ///   - router: the router.
    ///   - store: the cache store.
    ///   - executor: the queues store calls run on (shared with `/fetch`).
    ///   - access: the admin policy every admin route shares.
    ///   - decider: the filter chain (a purge by URL canonicalizes it as `/fetch` does).
    ///   - logger: the process logger.
    /// - Returns: the API (its `purgeMetrics` go to `/metrics`).
    @discardableResult
    static func mountCacheAPI(
        on router: inout Router, store: any CacheStore, executor: StorageExecutor, access: AdminAccess,
        decider: any FilterDecider = DefaultFilterDecider(), logger: Logger
    ) -> CacheAPI {
        let api = CacheAPI(
            store: store, executor: executor,
            onBodyFailure: { key, error in
                Logger(label: "larder.cache").warning(
                    "body read failed mid-response", metadata: ["key": "\(key)", "error": "\(error)"])
            }, decider: decider)
        api.mount(on: &router, access: access)
        return api
    }
}
