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
        let key = try CacheAPI.key(in: context)
        let store = api.store
        let clock = api.clock
        api.executor.respond(writer) {
            guard let entry = try store.entry(for: key) else { throw APIError.notFound(key) }
            return CacheAPI.json(CacheEntryJSON.meta(entry, now: clock()))
        }
    }
}
