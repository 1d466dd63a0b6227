public import HTTPCore
public import HTTPServer

/// A responder that lets a request through to the one it wraps only when `AdminAccess` allows it, and
/// otherwise answers the refusal itself. Mount one around each admin route.
///
/// A state-changing request that is let through (any unsafe method, `HTTPMethod.isSafe`: purges, deletes,
/// filter changes) is recorded in the policy's `AuditTrail` once its answer is known, with who made it.
public struct AdminGuard: HTTPResponder {
    private let access: AdminAccess
    private let wrapped: any HTTPResponder

    /// Creates a guard.
    /// - Parameters:
    ///   - access: the policy.
    ///   - wrapped: the responder it protects.
    public init(access: AdminAccess, wrapping wrapped: any HTTPResponder) {
        self.access = access
        self.wrapped = wrapped
    }

    /// Checks the request, then answers it or passes it on.
    public func respond(to request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter) {
        switch access.authorize(request: request, context: context) {
        case .success(let identity):
            guard let audit = access.audit, !request.method.isSafe else {
                return wrapped.respond(to: request, context: context, writer: writer)
            }
            let method = request.method
            let target = request.target
            let client = context.remoteAddress
            let observed = HTTPResponseWriter(forwardingTo: writer) { response in
                audit.record(
                    AuditEvent(identity: identity, client: client, method: method, target: target, response: response))
            }
            wrapped.respond(to: request, context: context, writer: observed)
        case .failure(let error):
            writer.send(error.makeResponse())
        }
    }
}

extension Router {
    /// Adds a route whose responder only admin clients reach.
    /// - Parameters:
    ///   - method: the method it answers.
    ///   - pattern: the path pattern.
    ///   - access: the admin policy.
    ///   - responder: what answers allowed requests.
    public mutating func addAdmin(
        _ method: HTTPMethod, _ pattern: String, access: AdminAccess, _ responder: any HTTPResponder
    ) {
        add(method, pattern, AdminGuard(access: access, wrapping: responder))
    }
}
