public import HTTPCore
public import HTTPServer

/// A route handler that throws what refuses a request, instead of rendering it itself: the `respond`
/// every API handler shares catches the error and answers it as problem+json (`APIError(_:)`), so a
/// handler reads as its success path (`let key = try CacheAPI.key(in: context)`). Work the handler hands
/// to a `StorageExecutor` throws there and is rendered the same way (`StorageExecutor.respond`).
///
/// `/fetch` does not use it: its hit path answers inline and pays for nothing it does not need.
public protocol APIHandler: HTTPResponder {
    /// Answers one request by calling `writer.send(_:)` exactly once, now or later, unless it throws.
    /// - Parameters:
    ///   - request: the complete request.
    ///   - context: who asked; the route parameters.
    ///   - writer: where the response goes.
    /// - Throws: whatever refuses the request, before anything was sent: an `APIError`, or an error
    ///   `APIError(_:)` knows how to answer (a store's, a filter's, the chain's).
    func handle(_ request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter) throws
}

extension APIHandler {
    /// Calls `handle`, and answers what it throws as problem+json.
    public func respond(to request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter) {
        do {
            try handle(request, context: context, writer: writer)
        } catch {
            writer.send(APIError(error).makeResponse())
        }
    }
}
