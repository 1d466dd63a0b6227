import CachePolicy
import HTTPCore
import HTTPServer

/// `POST /filters/defaults`: puts the chain a new database starts with (`FilterChain.defaultFilters`, the
/// `images` filter) back as the whole chain, honouring `If-Match` like every change; 200 with the chain.
struct FiltersDefaultsHandler: APIHandler {
    let api: FiltersAPI

    func handle(_ request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter) throws {
        _ = try CacheAPI.query(of: request, allowed: [])
        let precondition = try FiltersAPI.precondition(of: request)
        api.respond(writer) { registry in FiltersAPI.json(try registry.restoreDefaults(precondition: precondition)) }
    }
}

/// Every change of the chain while a filters file in `replace` mode owns it: 409 `filters-owned-by-file`
/// with the chain's `ETag`, saying which file to edit instead.
struct FiltersOwnedHandler: APIHandler {
    let owner: String

    func handle(_ request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter) throws {
        throw APIError(
            status: .conflict, type: .filtersOwnedByFile,
            detail: "The filter chain is \(owner) (--filters-mode replace); change the file and restart.")
    }
}
