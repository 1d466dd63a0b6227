import Dispatch
public import HTTPCore
public import HTTPServer
import Synchronization

/// `GET /readyz`: whether this replica should be given traffic.
///
/// 503 while the server drains (SIGTERM: new connections are refused, so this is seen by a request
/// already on its way) and while the store cannot write: the last store write failed (disk full, file
/// read-only or gone), or a probe write fails now. 200 otherwise. Either way the body says why:
///
/// ```json
/// {"status":"ready","reasons":[],"draining":false,
///  "store":{"writable":true,"lastWriteFailed":false,"backlogBytes":0,"backlogLimitBytes":67108864}}
/// ```
///
/// The store's backlog (bytes fetched and not yet written) is reported but never flips readiness: behind
/// a consistent-hash balancer, a replica taken out under a flood of misses moves its keys to the
/// others, which then fall behind in turn; past its limit the backlog already sheds by relaying
/// without storing.
///
/// The probe runs on a queue of its own: it waits for the store's writer, which must not hold up the
/// queues that serve hits.
public final class ReadinessHandler: HTTPResponder {
    private let service: FetchService
    private let storeProbe: @Sendable () throws -> Void
    private let probeQueue = DispatchQueue(label: "larder.readiness", qos: .userInitiated)
    private let drainCheck = Mutex<(@Sendable () -> Bool)?>(nil)

    /// Creates the handler.
    /// - Parameters:
    ///   - service: the fetch service, whose store writes and backlog are reported.
    ///   - storeProbe: a write that changes nothing and throws when the store cannot write
    ///     (`SQLiteCacheStore.probeWrite`).
    public init(service: FetchService, storeProbe: @escaping @Sendable () throws -> Void) {
        self.service = service
        self.storeProbe = storeProbe
    }

    /// Remembers the server whose drain makes this replica not ready. Held weakly: the server holds the
    /// router that holds this handler.
    /// - Parameter server: the server.
    public func attach(_ server: HTTPServer) {
        drainCheck.withLock { $0 = { [weak server] in server?.isDraining ?? false } }
    }

    /// Whether the attached server drains (false before one is attached).
    public var isDraining: Bool { drainCheck.withLock { $0 }?() ?? false }

    /// Probes the store and answers 200 or 503 with the reasons.
    /// - Parameters:
    ///   - request: the request.
    ///   - context: the request's context.
    ///   - writer: where the response goes.
    public func respond(to request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter) {
        let draining = isDraining
        probeQueue.async { [self] in
            writer.send(Self.response(for: check(draining: draining)))
        }
    }

    /// What readiness found.
    struct Report {
        var draining: Bool
        var lastWriteFailed: Bool
        var probeError: String?
        var backlogBytes: Int
        var backlogLimitBytes: Int

        /// Why the replica is not ready; empty when it is.
        var reasons: [String] {
            var reasons: [String] = []
            if draining { reasons.append("draining") }
            if lastWriteFailed { reasons.append("the last store write failed") }
            if probeError != nil { reasons.append("a probe write to the store failed") }
            return reasons
        }
    }

    /// Runs the checks (blocking on the store's writer for the probe).
    func check(draining: Bool) -> Report {
        var probeError: String?
        do {
            try storeProbe()
        } catch {
            probeError = "\(error)"
        }
        return Report(
            draining: draining, lastWriteFailed: service.metrics.lastStoreWriteFailed, probeError: probeError,
            backlogBytes: service.storeBacklogBytes,
            backlogLimitBytes: service.configuration.storeBacklogBytes)
    }

    /// The answer for a report: 200 when nothing is wrong, else 503, with the report as JSON.
    static func response(for report: Report) -> HTTPResponse {
        let reasons = report.reasons
        var store = JSONObjectWriter()
        store.add("writable", !report.lastWriteFailed && report.probeError == nil)
        store.add("lastWriteFailed", report.lastWriteFailed)
        if let probeError = report.probeError { store.add("probeError", probeError) }
        store.add("backlogBytes", report.backlogBytes)
        store.add("backlogLimitBytes", report.backlogLimitBytes)
        var body = JSONObjectWriter()
        body.add("status", reasons.isEmpty ? "ready" : "not ready")
        body.add("reasons", json: JSONObjectWriter.array(reasons))
        body.add("draining", report.draining)
        body.add("store", json: store.text)
        return HTTPResponse(
            status: reasons.isEmpty ? .ok : .serviceUnavailable,
            headers: HTTPHeaders([("Content-Type", "application/json"), ("Cache-Control", "no-store")]),
            body: .bytes(Array(body.text.utf8)))
    }
}
