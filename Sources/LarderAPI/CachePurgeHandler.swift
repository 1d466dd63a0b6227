import CacheCore
public import HTTPCore
public import HTTPServer

/// `DELETE /cache`: purges every entry, or those of one host (`?host=`) or one canonical URL prefix
/// (`?prefix=`); answers `{"purged": N}`. Both parameters at once, or any other, is 400.
public struct CachePurgeHandler: HTTPResponder {
    private let api: CacheAPI

    /// Creates the handler.
    /// - Parameter api: the store and executor.
    public init(api: CacheAPI) { self.api = api }

    /// Answers one purge request.
    public func respond(to request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter) {
        let scope: CachePurgeScope
        do {
            scope = try Self.scope(of: request)
        } catch {
            return writer.send(error.makeResponse())
        }
        let store = api.store
        api.executor.respond(writer) {
            let purged = try store.purge(scope)
            var object = JSONObjectWriter()
            object.add("purged", purged)
            return CacheAPI.json(object.text)
        }
    }

    /// What the parameters select.
    /// - Parameter request: the request.
    /// - Returns: the purge scope.
    /// - Throws: `APIError.badQuery` for a bad or conflicting parameter.
    static func scope(of request: HTTPRequest) throws(APIError) -> CachePurgeScope {
        let values = try CacheAPI.query(of: request, allowed: ["host", "prefix"])
        switch (values["host"], values["prefix"]) {
        case (nil, nil): return .all
        case (let host?, nil): return .host(host)
        case (nil, let prefix?): return .urlPrefix(prefix)
        case (_?, _?): throw .badQuery("give host or prefix, not both.")
        }
    }
}
