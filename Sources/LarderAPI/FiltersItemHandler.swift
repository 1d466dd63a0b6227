import CachePolicy
import HTTPCore
import HTTPServer

/// `GET`, `PUT` and `DELETE /filters/<name>`: one filter (see `FiltersAPI`). `PUT` to a name the chain
/// does not hold creates the filter at the end of the chain (201), so a deployment script can declare
/// a filter without first asking whether it exists.
struct FiltersItemHandler: APIHandler {
    let api: FiltersAPI

    func handle(_ request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter) throws {
        let name = context.parameters["name"] ?? ""
        _ = try CacheAPI.query(of: request, allowed: [])
        switch request.method {
        case .get, .head:
            let chain = api.registry.chain
            guard let filter = chain.filter(named: name) else { throw FilterChainError.notFound(name) }
            writer.send(FiltersAPI.json(filter.canonicalJSON, version: chain.version))
        case .put:
            try put(name, request, writer: writer)
        default:
            let precondition = try FiltersAPI.precondition(of: request)
            api.respond(writer) { registry in
                FiltersAPI.json(try registry.remove(named: name, precondition: precondition))
            }
        }
    }

    private func put(_ name: String, _ request: HTTPRequest, writer: HTTPResponseWriter) throws {
        try FilterDefinition.validateName(name, path: "name")
        let precondition = try FiltersAPI.precondition(of: request)
        let filter = try FilterDefinition.decode(json: FiltersAPI.jsonBody(of: request), defaultName: name)
        guard filter.name == name else {
            throw FilterDefinitionError(path: "name", message: "must be \(name.jsonQuoted), the name in the path")
        }
        api.respond(writer) { registry in
            let (chain, created) = try registry.put(filter, precondition: precondition)
            return FiltersAPI.json(
                filter.canonicalJSON, version: chain.version, status: created ? .created : .ok,
                location: created ? "/filters/\(name)" : nil)
        }
    }
}
