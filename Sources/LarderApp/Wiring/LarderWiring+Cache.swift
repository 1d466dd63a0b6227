import CacheCore
import CachePolicy
import HTTPServer
import LarderAPI
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
        var configuration = SQLiteCacheStore.Configuration(
            path: settings.store.databasePath, maxSize: settings.store.maxSize)
        configuration.sync = settings.store.sync
        configuration.memoryMapSize = settings.store.mapBytes
        configuration.deflateLevel = Int32(settings.store.deflateLevel)
        let store = try SQLiteCacheStore(configuration: configuration)
        switch store.startFinding {
        case nil: break
        case .checkedAfterCrash(let seconds)?:
            logger.warning(
                "the cache file passed its integrity check after a crash of the machine",
                metadata: ["path": "\(settings.store.databasePath)", "seconds": "\(seconds)"])
        case .discardedAfterCrash(let movedTo, let reason)?:
            logger.error(
                "the cache file failed its integrity check after a crash of the machine; moved aside, starting empty",
                metadata: ["path": "\(settings.store.databasePath)", "movedTo": "\(movedTo)", "problem": "\(reason)"])
        }
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

    /// The `/cache` API, whose body failures are logged.
    /// - Parameters:
    ///   - store: the cache store.
    ///   - executor: the queues store calls run on (shared with `/fetch`).
    ///   - decider: the filter chain (a purge by URL canonicalizes it as `/fetch` does).
    ///   - logger: the process logger; body failures go to its `larder.cache` part.
    /// - Returns: the API (its `purgeMetrics` go to `/metrics`).
    static func makeCacheAPI(
        store: any CacheStore, executor: StorageExecutor, decider: any FilterDecider = DefaultFilterDecider(),
        logger: Logger
    ) -> CacheAPI {
        let logger = logger.part("larder.cache")
        return CacheAPI(
            store: store, executor: executor,
            onBodyFailure: { key, error in
                logger.warning(
                    "body read failed mid-response", metadata: ["key": "\(key)", "error": "\(error)"])
            }, decider: decider)
    }
}
