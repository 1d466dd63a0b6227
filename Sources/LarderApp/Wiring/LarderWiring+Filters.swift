import CacheCore
import CachePolicy
import HTTPServer
import LarderAPI
import Logging
import Upstream

extension LarderWiring {
    /// Loads the filter chain from the store (a new database gets the default `images` chain, or the
    /// filters file's), applies the filters file in `replace` mode, and makes the `/filters` API on it.
    /// - Parameters:
    ///   - store: the store holding the chain.
    ///   - settings: the resolved settings.
    ///   - addressPolicy: the fetch path's address policy (its allow-networks), so that explain judges
    ///     addresses exactly as fetches do.
    ///   - declared: the filters of `--filters-file`, read before the store was opened; `nil` for none.
    ///   - logger: the process logger.
    /// - Returns: the API; its `registry` is the live chain, which `/fetch` decides with.
    /// - Throws: when the stored chain cannot be loaded or saved.
    static func makeFiltersAPI(
        store: any FilterChainStore, settings: ServeSettings, addressPolicy: AddressPolicy = AddressPolicy(),
        declared: [FilterDefinition]? = nil, logger: Logger
    ) throws -> FiltersAPI {
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
        return FiltersAPI(
            registry: registry, executor: StorageExecutor(width: 2, label: "larder.filters"),
            addressPolicy: addressPolicy, owner: owner)
    }
}
