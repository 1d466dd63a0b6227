public import HTTPCore
public import HTTPServer

/// The guard in front of `/fetch`: it lets a request through only when `FetchAccess` admits it
/// (`FetchHandler` removes the `Larder-Token` field, guard or not), and answers a refusal itself: 403
/// problem+json naming what was wrong, never a key or a secret.
///
/// Mounted only when signing or tokens are configured, or may be on a reload (`FetchAccess.needsGuard`), so
/// that an open `/fetch` pays nothing for it; while a reload left nothing configured, it lets every request
/// through.
public typealias FetchGuard = AccessGuard<FetchAccess>

extension FetchAccess: AccessPolicy {
    /// Admits a request with a valid token or signature, or any while nothing is configured; refuses the
    /// rest with 403 and the problem type of what was wrong.
    public func admit(
        _ request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter
    ) -> Result<HTTPResponseWriter, APIError> {
        switch decide(method: request.method, query: request.query, headers: request.headers) {
        case .token, .signature, .open:
            .success(writer)
        case .refused(let refusal):
            .failure(
                APIError(status: .forbidden, type: refusal.problemType(signing: signsURLs), detail: refusal.detail))
        }
    }
}
