import CacheCore
public import HTTPCore
public import HTTPServer

/// `DELETE /cache/<key>`: 204 when the entry was deleted, 404 when there was none.
public struct CacheDeleteHandler: APIHandler {
    private let api: CacheAPI

    /// Creates the handler.
    /// - Parameter api: the store and executor.
    public init(api: CacheAPI) { self.api = api }

    /// Answers one delete request.
    public func handle(_ request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter) throws {
        try api.respond(forKeyIn: context, writer: writer) { api, key in
            guard try api.store.delete(key) else { throw APIError.notFound(key) }
            return HTTPResponse(status: .noContent, headers: HTTPHeaders([("Cache-Control", "no-store")]))
        }
    }
}
