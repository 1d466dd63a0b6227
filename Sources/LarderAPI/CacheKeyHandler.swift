import CacheCore
public import HTTPCore
public import HTTPServer

/// A `/cache/<key>` route whose answer is one piece of store work on the key, run on the storage executor
/// (`CacheAPI.respond(forKeyIn:writer:_:)`): `GET /cache/<key>/meta` (``meta(api:)``) and
/// `DELETE /cache/<key>` (``delete(api:)``). A key that is not 64 lower-case hex digits is answered 400.
public struct CacheKeyHandler: APIHandler {
    private let api: CacheAPI
    private let work: @Sendable (CacheAPI, CacheKey) throws -> HTTPResponse

    /// `GET /cache/<key>/meta`: every field of the stored entry as JSON, with its current age and freshness
    /// left at the API's clock (`CacheEntryJSON.meta`); 404 when there is none.
    /// - Parameter api: the store, executor and clock.
    /// - Returns: the handler.
    public static func meta(api: CacheAPI) -> CacheKeyHandler {
        CacheKeyHandler(api: api) { api, key in
            CacheAPI.json(CacheEntryJSON.meta(try api.entry(for: key), now: api.clock()))
        }
    }

    /// `DELETE /cache/<key>`: 204 when the entry was deleted, 404 when there was none.
    /// - Parameter api: the store and executor.
    /// - Returns: the handler.
    public static func delete(api: CacheAPI) -> CacheKeyHandler {
        CacheKeyHandler(api: api) { api, key in
            guard try api.store.delete(key) else { throw APIError.notFound(key) }
            return HTTPResponse(status: .noContent, headers: HTTPHeaders([("Cache-Control", "no-store")]))
        }
    }

    private init(api: CacheAPI, work: @escaping @Sendable (CacheAPI, CacheKey) throws -> HTTPResponse) {
        self.api = api
        self.work = work
    }

    /// Answers one request for the entry the path names.
    public func handle(_ request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter) throws {
        try api.respond(forKeyIn: context, writer: writer, work)
    }
}
