public import HTTPCore
public import HTTPServer

/// A policy an `AccessGuard` asks about each request before the responder it wraps sees it: `AdminAccess`
/// (`AdminGuard`, around each admin route) and `FetchAccess` (`FetchGuard`, in front of `/fetch`).
public protocol AccessPolicy: Sendable {
    /// Lets a request through, or refuses it.
    /// - Parameters:
    ///   - request: the request.
    ///   - context: where it came from.
    ///   - writer: where its answer goes.
    /// - Returns: the writer the wrapped responder answers through (`writer`, or one that watches the answer
    ///   go by), or the refusal the guard answers instead.
    func admit(
        _ request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter
    ) -> Result<HTTPResponseWriter, APIError>
}

/// A responder that lets a request through to the one it wraps only when its policy admits it, and
/// otherwise answers the refusal itself as problem+json.
public struct AccessGuard<Policy: AccessPolicy>: HTTPResponder {
    private let access: Policy
    private let wrapped: any HTTPResponder

    /// Creates a guard.
    /// - Parameters:
    ///   - access: the policy.
    ///   - wrapped: the responder it protects.
    public init(access: Policy, wrapping wrapped: any HTTPResponder) {
        self.access = access
        self.wrapped = wrapped
    }

    /// Checks the request, then passes it on or answers the refusal.
    public func respond(to request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter) {
        switch access.admit(request, context: context, writer: writer) {
        case .success(let answering): wrapped.respond(to: request, context: context, writer: answering)
        case .failure(let refusal): writer.send(refusal.makeResponse())
        }
    }
}
