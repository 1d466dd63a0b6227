public import HTTPCore
public import HTTPServer

/// A responder in front of `/fetch` that lets a request through only when `FetchAccess` admits it
/// (`FetchHandler` removes the `Larder-Token` field, guard or not), and answers a refusal itself: 403 problem+json naming what was wrong, never a key or a secret.
///
/// Mounted only when signing or tokens are configured, or may be on a reload (`FetchAccess.needsGuard`), so
/// that an open `/fetch` pays nothing for it; while a reload left nothing configured, it lets every request
/// through.
public struct FetchGuard: HTTPResponder {
    private let access: FetchAccess
    private let wrapped: any HTTPResponder

    /// Creates a guard.
    /// - Parameters:
    ///   - access: the policy.
    ///   - wrapped: the `/fetch` responder.
    public init(access: FetchAccess, wrapping wrapped: any HTTPResponder) {
        self.access = access
        self.wrapped = wrapped
    }

    /// Checks the request, then answers it or passes it on.
    public func respond(to request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter) {
        switch access.decide(method: request.method, query: request.query, headers: request.headers) {
        case .token, .signature, .open:
            wrapped.respond(to: request, context: context, writer: writer)
        case .refused(let refusal):
            writer.send(
                APIError(
                    status: .forbidden, type: refusal.problemType(signing: access.signsURLs), detail: refusal.detail
                )
                .makeResponse())
        }
    }
}
