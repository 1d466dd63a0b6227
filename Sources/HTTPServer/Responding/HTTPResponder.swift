public import HTTPCore

/// Answers requests: the one thing a server, a router and a route handler have in common.
///
/// `respond` is called on the connection's serial queue, which is shared with other connections:
/// it must not block. Work that waits (storage, origin fetches) goes elsewhere, and the answer comes
/// back through `writer.send(_:)` from any thread.
public protocol HTTPResponder: Sendable {
    /// Answers one request by calling `writer.send(_:)` exactly once, now or later, from any thread.
    /// - Parameters:
    ///   - request: the complete request, body included.
    ///   - context: who asked, on which connection, and when; route parameters when routed.
    ///   - writer: where the response goes.
    func respond(to request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter)
}

/// A responder made from a closure, for small handlers and tests.
public struct HTTPClosureResponder: HTTPResponder {
    private let body: @Sendable (HTTPRequest, HTTPRequestContext, HTTPResponseWriter) -> Void

    /// Creates a responder that calls `body` for each request.
    /// - Parameter body: answers the request through the writer, exactly once.
    public init(_ body: @escaping @Sendable (HTTPRequest, HTTPRequestContext, HTTPResponseWriter) -> Void) {
        self.body = body
    }

    /// Calls the closure.
    public func respond(to request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter) {
        body(request, context, writer)
    }
}
