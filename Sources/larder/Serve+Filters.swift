import CacheCore
import CachePolicy
import HTTPServer
import LarderAPI
import LarderApp
import Logging
import Upstream

extension LarderWiring {
    /// Loads the filter chain from the store (a new database gets the default `images` chain, or the
    /// filters file's), applies the filters file in `replace` mode, and mounts `/filters` behind the admin
    /// guard.
    /// - Parameters:
    ///   - router: the router.
    ///   - store: the cache store holding the chain.
    ///   - settings: the resolved settings.
    ///   - access: the admin policy every admin route shares.
    ///   - addressPolicy: the fetch path's address policy (its allow-networks), so that explain judges
    ///     addresses exactly as fetches do.
    ///   - declared: the filters of `--filters-file`, read before the store was opened; `nil` for none.
    ///   - logger: the process logger.
    /// - Returns: the live chain, which `/fetch` decides with.
    /// - Throws: when the stored chain cannot be loaded or saved.
    @discardableResult
    static func mountFiltersAPI(
        on router: inout Router, store: any CacheStore, settings: ServeSettings, access: AdminAccess,
        addressPolicy: AddressPolicy = AddressPolicy(), declared: [FilterDefinition]? = nil, logger: Logger
    ) throws -> FilterChainRegistry {
        let registry = try FilterChainRegistry(
            store: store, defaultPolicy: settings.fetch.defaultPolicy,
            initialFilters: declared ?? FilterChain.defaultFilters)
        var owner: String?
        if let declared, let path = settings.filters.file, settings.filters.mode == .replace {
            let changed = try registry.adopt(declared)
            owner = "declared by the filters file \(path)"
            // Debug, as the store's line: the first info line of `serve` is "listening on".
            logger.debug(
                "filter chain \(changed ? "replaced by" : "already matches") \(path) (--filters-mode replace)")
        }
        let chain = registry.chain
        // Debug, as the store's line: the first info line of `serve` is "listening on".
        logger.debug(
            "filter chain loaded",
            metadata: [
                "version": "\(chain.version)", "filters": "\(chain.filters.map(\.name))",
                "defaultPolicy": "\(settings.fetch.defaultPolicy.rawValue)",
            ])
        // Queues of its own, not the fetch path's: explain resolves host names, which can block for
        // seconds, and must not hold up the queues that serve cache hits.
        FiltersAPI(
            registry: registry, executor: StorageExecutor(width: 2, label: "larder.filters"),
            addressPolicy: addressPolicy, owner: owner
        )
        .mount(on: &router, access: access)
        return registry
    }
}
