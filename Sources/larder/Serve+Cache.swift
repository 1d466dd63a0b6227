import ArgumentParser
import CacheCore
import Foundation
import HTTPServer
import LarderAPI
import Logging
import Storage

extension Setting {
    static let maxSize = Setting(
        flag: "max-size", environment: "LARDER_MAX_SIZE", defaultValue: "1G",
        summary: "Bound on the cache's size in bytes (suffix K, M, G, T for powers of 1024); 0 for none.")
    static let adminToken = Setting(
        flag: "admin-token", environment: "LARDER_ADMIN_TOKEN", defaultValue: "",
        summary: "Bearer token the admin API (/cache) requires; without one it answers loopback clients only.")
}

extension Settings {
    /// Reads a size: a non-negative integer of bytes, optionally with a K, M, G or T suffix (powers of
    /// 1024, an optional trailing `B` or `iB` ignored); 0 means no bound.
    /// - Parameters:
    ///   - text: the value as given.
    ///   - origin: the flag or variable it came from, for the message.
    /// - Returns: the bound in bytes, `nil` for none.
    /// - Throws: `ValidationError` naming the origin and the value.
    static func parseSize(_ text: String, origin: String) throws -> Int? {
        var digits = Substring(text.trimmingCharacters(in: .whitespaces)).uppercased()[...]
        if digits.hasSuffix("IB") {
            digits = digits.dropLast(2)
        } else if digits.hasSuffix("B") {
            digits = digits.dropLast()
        }
        var shift = 0
        if let unit = digits.last, let index = "KMGT".firstIndex(of: unit) {
            shift = 10 * ("KMGT".distance(from: "KMGT".startIndex, to: index) + 1)
            digits = digits.dropLast()
        }
        guard let value = Int(digits), value >= 0, value <= (Int.max >> shift) else {
            throw ValidationError("\(origin): '\(text)' is not a size in bytes (e.g. 500M, 2G, 0 for none)")
        }
        return value == 0 ? nil : value << shift
    }
}

extension LarderWiring {
    /// Opens the SQLite cache store at `--db`, bounded by `--max-size`.
    /// - Parameters:
    ///   - settings: the resolved settings.
    ///   - logger: the process logger.
    /// - Returns: the store.
    /// - Throws: `CacheStoreError` when the file cannot be opened or migrated.
    static func openCacheStore(settings: Settings, logger: Logger) throws -> SQLiteCacheStore {
        let store = try SQLiteCacheStore(path: settings.databasePath, maxSize: settings.maxSize)
        let stats = try store.stats()
        // Debug, not info: the first info line of `serve` is "listening on", which scripts and the
        // server's process tests wait for.
        logger.debug(
            "cache store open",
            metadata: [
                "path": "\(settings.databasePath)", "entries": "\(stats.entryCount)", "bytes": "\(stats.totalBytes)",
                "maxSize": "\(settings.maxSize.map(String.init) ?? "none")",
            ])
        return store
    }

    /// Mounts `/cache` behind the admin guard (`--admin-token`, else loopback clients only).
    /// - Parameters:
    ///   - router: the router.
    ///   - store: the cache store.
    ///   - executor: the queues store calls run on (shared with `/fetch`).
    ///   - settings: the resolved settings.
    ///   - logger: the process logger.
    static func mountCacheAPI(
        on router: inout Router, store: any CacheStore, executor: StorageExecutor, settings: Settings, logger: Logger
    ) {
        let access = AdminAccess(token: settings.adminToken)
        logger.debug(
            "admin API \(access.requiresToken ? "requires the bearer token" : "answers loopback clients only")")
        let api = CacheAPI(
            store: store, executor: executor,
            onBodyFailure: { key, error in
                Logger(label: "larder.cache").warning(
                    "body read failed mid-response", metadata: ["key": "\(key)", "error": "\(error)"])
            })
        api.mount(on: &router, access: access)
    }
}
