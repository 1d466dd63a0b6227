import HTTPCore
public import HTTPServer

/// Every route Larder serves, in one table: `larder serve` builds its router here (`LarderWiring`), and so
/// do the tests (`LarderTesting`), each with the parts it has; a part left out leaves its routes out.
///
/// The first route whose pattern matches a path owns it (`Router`), so the order below matters where
/// patterns overlap: `/filters/explain` and `/filters/defaults` come before `/filters/:name`.
/// Admin routes sit behind `AdminGuard` (`Router.addAdmin`) with the one `access` every admin route shares,
/// so that one login of the operator page opens all of them.
public struct LarderRoutes: Sendable {
    /// Who may use the admin routes.
    public var access: AdminAccess
    /// `/filters`, when mounted.
    public var filters: FiltersAPI?
    /// `/fetch` and `/fetches`, when mounted.
    public var fetch: FetchService?
    /// Who may use `/fetch`; its guard is mounted only when a key or token is set, or a file may set one.
    public var fetchAccess: FetchAccess
    /// `/cache`, when mounted.
    public var cache: CacheAPI?
    /// Whether the operator page (`/ui/`) is mounted.
    public var operatorPage: Bool
    /// `/metrics`, when mounted, and whether it is public (like `/livez`) or an admin route.
    public var metrics: (handler: MetricsHandler, isPublic: Bool)?
    /// `/readyz`, when mounted.
    public var readiness: ReadinessHandler?

    /// Creates the table's parts; `/livez`, `/healthz` and `/openapi.yaml` are always there.
    /// - Parameters:
    ///   - access: who may use the admin routes.
    ///   - filters: `/filters`.
    ///   - fetch: `/fetch` and `/fetches`.
    ///   - fetchAccess: who may use `/fetch` (open by default).
    ///   - cache: `/cache`.
    ///   - operatorPage: whether `/ui/` is mounted.
    ///   - metrics: `/metrics`, public or admin.
    ///   - readiness: `/readyz`.
    public init(
        access: AdminAccess, filters: FiltersAPI? = nil, fetch: FetchService? = nil,
        fetchAccess: FetchAccess = FetchAccess(), cache: CacheAPI? = nil, operatorPage: Bool = false,
        metrics: (handler: MetricsHandler, isPublic: Bool)? = nil, readiness: ReadinessHandler? = nil
    ) {
        self.access = access
        self.filters = filters
        self.fetch = fetch
        self.fetchAccess = fetchAccess
        self.cache = cache
        self.operatorPage = operatorPage
        self.metrics = metrics
        self.readiness = readiness
    }

    /// The router holding every route of the parts given.
    /// - Returns: the router, the root responder of the server.
    public func makeRouter() -> Router {
        var router = Router()
        // `/healthz` is the older name of `/livez`, kept for the probes and scripts that use it.
        router.add(.get, "/livez", LivenessHandler())
        router.add(.get, "/healthz", LivenessHandler())
        router.add(.get, "/openapi.yaml", OpenAPIResponder())
        if let filters { mountFilters(filters, on: &router) }
        if let fetch {
            // An open /fetch pays for no guard at all.
            let handler: any HTTPResponder =
                fetchAccess.needsGuard
                ? FetchGuard(access: fetchAccess, wrapping: FetchHandler(service: fetch)) : FetchHandler(service: fetch)
            // HEAD is answered by this GET route (the router's fallback), before the any-method one.
            router.add(.get, "/fetch", handler)
            // Every other method is forwarded uncached (RFC 9111 §4.4), after the route above.
            router.addAnyMethod("/fetch", handler)
            router.addAdmin(.get, "/fetches", access: access, FetchesHandler(service: fetch))
        }
        if let cache {
            router.addAdmin(.get, "/cache", access: access, CacheListHandler(api: cache))
            router.addAdmin(.delete, "/cache", access: access, CachePurgeHandler(api: cache))
            // HEAD is answered by this GET route (the router's fallback), guard and all.
            router.addAdmin(.get, "/cache/:key", access: access, CacheBodyHandler(api: cache))
            router.addAdmin(.delete, "/cache/:key", access: access, CacheKeyHandler.delete(api: cache))
            router.addAdmin(.get, "/cache/:key/meta", access: access, CacheKeyHandler.meta(api: cache))
        }
        if operatorPage {
            // The page checks `access` itself: a browser without a session gets the login form, not a 401.
            router.add(.get, "/ui", OperatorRedirect())
            router.add(.get, "/ui/", OperatorPageHandler(access: access))
            router.add(.get, "/ui/operator.js", OperatorAssetHandler(access: access, response: OperatorPage.script))
            router.add(
                .get, "/ui/entries.js", OperatorAssetHandler(access: access, response: OperatorPage.entriesScript))
            router.add(
                .get, "/ui/operator.css", OperatorAssetHandler(access: access, response: OperatorPage.styleSheet))
            router.add(.get, "/ui/icon.svg", OperatorAssetHandler(access: access, response: OperatorPage.icon))
            router.add(.post, "/ui/login", OperatorLoginHandler(access: access))
            router.add(.post, "/ui/logout", OperatorLogoutHandler(access: access))
        }
        if let metrics {
            if metrics.isPublic {
                router.add(.get, "/metrics", metrics.handler)
            } else {
                router.addAdmin(.get, "/metrics", access: access, metrics.handler)
            }
        }
        if let readiness { router.add(.get, "/readyz", readiness) }
        return router
    }

    /// `/filters`: `explain` and `defaults` before `:name`, which is why they are reserved filter names.
    /// Every change goes to the refusal when a filters file owns the chain; reads are the same either way.
    private func mountFilters(_ filters: FiltersAPI, on router: inout Router) {
        let chain = FiltersChainHandler(api: filters)
        let item = FiltersItemHandler(api: filters)
        let owned = filters.owner.map { FiltersOwnedHandler(owner: $0) }
        router.addAdmin(.get, "/filters/explain", access: access, FiltersExplainHandler(api: filters))
        router.addAdmin(.post, "/filters/defaults", access: access, owned ?? FiltersDefaultsHandler(api: filters))
        router.addAdmin(.get, "/filters", access: access, chain)
        for method in [HTTPMethod.put, .post, .delete] {
            router.addAdmin(method, "/filters", access: access, owned ?? chain)
        }
        router.addAdmin(.get, "/filters/:name", access: access, item)
        for method in [HTTPMethod.put, .delete] {
            router.addAdmin(method, "/filters/:name", access: access, owned ?? item)
        }
    }
}
