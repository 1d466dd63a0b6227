import CacheCore
public import HTTPCore
public import HTTPServer

/// `GET /cache/<key>/meta`: every field of the stored entry as JSON, with its current age and freshness
/// left at the API's clock (`CacheEntryJSON.meta`).
public struct CacheMetaHandler: APIHandler {
    private let api: CacheAPI

    /// Creates the handler.
    /// - Parameter api: the store, executor and clock.
    public init(api: CacheAPI) { self.api = api }

    /// Answers one meta request.
    public func handle(_ request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter) throws {
        try api.respond(forKeyIn: context, writer: writer) { api, key in
            CacheAPI.json(CacheEntryJSON.meta(try api.entry(for: key), now: api.clock()))
        }
    }
}
