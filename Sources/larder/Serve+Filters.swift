import CacheCore
import CachePolicy
import HTTPServer
import LarderAPI
import Logging
import Upstream

extension Setting {
    static let defaultPolicy = Setting(
        flag: "default-policy", environment: "LARDER_DEFAULT_POLICY", defaultValue: "http",
        summary: "What happens to requests no filter owns: http (RFC 9111 shared-cache rules) or bypass (never stored)."
    )
}

extension LarderWiring {
    /// Loads the filter chain from the store (a new database gets the default `images` chain) and mounts
    /// `/filters` behind the admin guard.
    /// - Parameters:
    ///   - router: the router.
    ///   - store: the cache store holding the chain.
    ///   - settings: the resolved settings.
    ///   - logger: the process logger.
    /// - Returns: the live chain, which `/fetch` decides with.
    /// - Throws: when the stored chain cannot be loaded.
    @discardableResult
    static func mountFiltersAPI(
        on router: inout Router, store: any CacheStore, settings: Settings, logger: Logger
    ) throws -> FilterChainRegistry {
        let registry = try FilterChainRegistry(store: store, defaultPolicy: settings.defaultPolicy)
        let chain = registry.chain
        // Debug, as the store's line: the first info line of `serve` is "listening on".
        logger.debug(
            "filter chain loaded",
            metadata: [
                "version": "\(chain.version)", "filters": "\(chain.filters.map(\.name))",
                "defaultPolicy": "\(settings.defaultPolicy.rawValue)",
            ])
        // The fetch path's allow-networks belong here once that setting exists, so explain judges
        // addresses exactly as fetches do.
        FiltersAPI(registry: registry, executor: StorageExecutor(width: 2, label: "larder.filters"))
            .mount(on: &router, access: AdminAccess(token: settings.adminToken))
        return registry
    }
}
