public import HTTPCore
public import HTTPServer

/// `GET /livez` (and its older name `/healthz`): 200 `{"status":"ok"}` whenever the process answers.
///
/// Liveness says only that the server's loops run: an orchestrator restarts a process that stops
/// answering it. Whether this replica should get traffic is `/readyz` (`ReadinessHandler`).
public struct LivenessHandler: HTTPResponder {
    // Built once: the answer never changes, so no request pays for building it.
    private static let response = HTTPResponse(
        status: .ok, headers: HTTPHeaders([("Content-Type", "application/json"), ("Cache-Control", "no-store")]),
        body: .bytes(Array(#"{"status":"ok"}"#.utf8)))

    /// Creates the handler.
    public init() {}

    /// Sends 200 `{"status":"ok"}`.
    /// - Parameters:
    ///   - request: the request.
    ///   - context: the request's context.
    ///   - writer: where the response goes.
    public func respond(to request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter) {
        writer.send(Self.response)
    }
}
