public import HTTPCore
public import HTTPServer

/// The guard mounted around each admin route: it lets a request through only when `AdminAccess` allows it,
/// and otherwise answers the refusal itself.
///
/// A state-changing request that is let through (any unsafe method, `HTTPMethod.isSafe`: purges, deletes,
/// filter changes) is recorded in the policy's `AuditTrail` once its answer is known, with who made it.
public typealias AdminGuard = AccessGuard<AdminAccess>

extension AdminAccess: AccessPolicy {
    /// Admits what `authorize(request:context:)` allows; a state-changing request is answered through a
    /// writer that records it in the `AuditTrail` as its answer goes by.
    public func admit(
        _ request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter
    ) -> Result<HTTPResponseWriter, APIError> {
        authorize(request: request, context: context).map { identity in
            guard let audit, !request.method.isSafe else { return writer }
            let method = request.method
            let target = request.target
            let client = context.remoteAddress
            return HTTPResponseWriter(forwardingTo: writer) { response in
                audit.record(
                    AuditEvent(identity: identity, client: client, method: method, target: target, response: response))
            }
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
