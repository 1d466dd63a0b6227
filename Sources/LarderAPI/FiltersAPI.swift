import CacheCore
public import CachePolicy
import HTTPCore
import HTTPServer
public import Upstream

/// The `/filters` admin API (DESIGN.md, "HTTP API"): list, replace, add, change, remove and
/// explain the filter chain at run time.
///
/// | route | answer |
/// | --- | --- |
/// | `GET /filters` | `{"version":N,"filters":[...]}` with `ETag: "N"` (304 on a matching `If-None-Match`) |
/// | `PUT /filters` | replace the whole chain atomically; 200 with the new chain |
/// | `POST /filters[?before=<name>]` | add one at the end or before `<name>`: 201 with the chain; 409, 404 |
/// | `DELETE /filters` | remove every filter; 200 with the (empty) chain |
/// | `GET /filters/<name>` | the filter, with the chain's `ETag` |
/// | `PUT /filters/<name>` | replace it in place (200), or create it at the end of the chain (201) |
/// | `DELETE /filters/<name>` | remove it; 200 with the new chain |
/// | `GET /filters/explain?url=U` | the dry run (see `FiltersExplainHandler`) |
/// | `POST /filters/defaults` | put the default chain back (`FilterChain.defaultFilters`); 200 with the chain |
///
/// When a filters file in `replace` mode owns the chain (`owner`), every change answers 409
/// `filters-owned-by-file`: the file is applied at every start, so a change through the API would be
/// undone silently by the next one.
///
/// `POST` answers 409 on a duplicate name and 404 when `before` names nothing. A `PUT /filters/<name>`
/// body may leave `name` out; when given, it must be `<name>` (renaming is delete and add).
///
/// Every change accepts `If-Match` (the `ETag` of `GET /filters`; a stale one is 412, a malformed one
/// 400), bumps the version, is saved before it becomes visible, and answers with the new `ETag`.
/// Bodies must be `application/json` (else 415); bad JSON, unknown fields and wrong types are 400
/// problem+json with a `path` member naming the field. Every route sits behind `AdminGuard`; saves and
/// address resolution run on the `StorageExecutor`, never on a connection queue.
public struct FiltersAPI: Sendable {
    /// The live chain.
    public let registry: FilterChainRegistry
    /// Where blocking work runs.
    public let executor: StorageExecutor
    /// Resolves a host and judges each address (blocking), for explain.
    public let addressVerdicts: @Sendable (String) -> [(address: IPAddress, verdict: AddressVerdict)]
    /// What owns the chain instead of the API (`the filters file /etc/larder/filters.json`), `nil` when
    /// the API may change it.
    public let owner: String?

    /// Creates the API.
    ///
    /// - Parameters:
    ///   - registry: The live chain.
    ///   - executor: Runs saves and resolution.
    ///   - addressPolicy: The fetch path's address policy (with its allow-networks), for explain.
    ///   - addressVerdicts: Replaces resolution through `addressPolicy` (tests that must not use DNS).
    ///   - owner: What owns the chain instead of the API, for the 409 of a change; `nil` when the API does.
    public init(
        registry: FilterChainRegistry, executor: StorageExecutor, addressPolicy: AddressPolicy = AddressPolicy(),
        addressVerdicts: (@Sendable (String) -> [(address: IPAddress, verdict: AddressVerdict)])? = nil,
        owner: String? = nil
    ) {
        self.owner = owner
        self.registry = registry
        self.executor = executor
        self.addressVerdicts = addressVerdicts ?? { addressPolicy.verdicts(resolving: $0) }
    }

    /// The chain's entity tag: its version, quoted (`"7"`).
    static func entityTag(_ version: Int) -> String { "\"\(version)\"" }

    /// Runs a change of the chain on the storage executor (saves write SQLite) and answers what `change`
    /// returns or throws.
    /// - Parameters:
    ///   - writer: where the answer goes.
    ///   - change: the change, made on the registry.
    func respond(
        _ writer: HTTPResponseWriter, changing change: @escaping @Sendable (FilterChainRegistry) throws -> HTTPResponse
    ) {
        executor.respond(writer) { [registry] in try change(registry) }
    }

    /// The whole chain as the JSON answer (`{"version":N,"filters":[...]}`) with its `ETag`.
    static func json(_ chain: FilterChain, status: HTTPStatus = .ok, location: String? = nil) -> HTTPResponse {
        json(chain.json, version: chain.version, status: status, location: location)
    }

    /// A JSON answer with the chain's `ETag` and `Cache-Control: no-store`.
    static func json(_ text: String, version: Int, status: HTTPStatus = .ok, location: String? = nil) -> HTTPResponse {
        var headers = HTTPHeaders([
            ("Content-Type", "application/json"), ("Cache-Control", "no-store"), ("ETag", entityTag(version)),
        ])
        if let location { headers.add(name: "Location", value: location) }
        return HTTPResponse(status: status, headers: headers, body: .bytes(Array(text.utf8)))
    }
}
