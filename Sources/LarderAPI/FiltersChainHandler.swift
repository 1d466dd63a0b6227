import CachePolicy
import HTTPCore
import HTTPServer

/// `GET`, `PUT`, `POST` and `DELETE /filters`: the chain as a whole (see `FiltersAPI`).
struct FiltersChainHandler: APIHandler {
    let api: FiltersAPI

    func handle(_ request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter) throws {
        switch request.method {
        case .get, .head: writer.send(try list(request))
        case .put: try replace(request, writer: writer)
        case .post: try add(request, writer: writer)
        default: try removeAll(request, writer: writer)
        }
    }

    /// Answers from memory: the chain is held by the registry, so no store work is needed.
    private func list(_ request: HTTPRequest) throws -> HTTPResponse {
        _ = try CacheAPI.query(of: request, allowed: [])
        let chain = api.registry.chain
        if let condition = EntityTag.Condition(field: "If-None-Match", in: request.headers),
            !condition.ifNoneMatchPasses(current: EntityTag(opaqueTag: String(chain.version)))
        {
            return HTTPResponse(
                status: .notModified,
                headers: HTTPHeaders([("ETag", FiltersAPI.entityTag(chain.version)), ("Cache-Control", "no-store")]))
        }
        return FiltersAPI.json(chain.json, version: chain.version)
    }

    private func replace(_ request: HTTPRequest, writer: HTTPResponseWriter) throws {
        _ = try CacheAPI.query(of: request, allowed: [])
        let precondition = try FiltersAPI.precondition(of: request)
        let filters = try FilterDefinition.decodeList(json: FiltersAPI.jsonBody(of: request))
        api.respond(writer) { registry in
            FiltersAPI.json(try registry.replaceAll(with: filters, precondition: precondition))
        }
    }

    private func add(_ request: HTTPRequest, writer: HTTPResponseWriter) throws {
        let before = try CacheAPI.query(of: request, allowed: ["before"])["before"]
        let precondition = try FiltersAPI.precondition(of: request)
        let filter = try FilterDefinition.decode(json: FiltersAPI.jsonBody(of: request))
        api.respond(writer) { registry in
            FiltersAPI.json(
                try registry.add(filter, before: before, precondition: precondition), status: .created,
                location: "/filters/\(filter.name)")
        }
    }

    private func removeAll(_ request: HTTPRequest, writer: HTTPResponseWriter) throws {
        _ = try CacheAPI.query(of: request, allowed: [])
        let precondition = try FiltersAPI.precondition(of: request)
        api.respond(writer) { registry in FiltersAPI.json(try registry.removeAll(precondition: precondition)) }
    }
}
