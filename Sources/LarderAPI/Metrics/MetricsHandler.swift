public import HTTPCore
public import HTTPServer
public import Metrics

/// `GET|HEAD /metrics`: the registry's exposition in the Prometheus text format 0.0.4
/// (https://prometheus.io/docs/instrumenting/exposition_formats/#text-based-format).
///
/// Built on the storage executor, not the connection's queue: collectors may read the store's
/// counters and `/proc`, and a scrape must never stall the event loop other connections share.
public struct MetricsHandler: HTTPResponder {
    /// What is exposed.
    public let registry: MetricsRegistry
    /// Where the exposition is built.
    public let executor: StorageExecutor

    /// Creates the handler.
    /// - Parameters:
    ///   - registry: the metrics.
    ///   - executor: where a scrape runs.
    public init(registry: MetricsRegistry, executor: StorageExecutor) {
        self.registry = registry
        self.executor = executor
    }

    /// Answers 200 with the exposition, built on the executor.
    /// - Parameters:
    ///   - request: the request (`GET` or `HEAD`; the router sends nothing else).
    ///   - context: the connection's facts (unused: the scrape is the same for every client).
    ///   - writer: where the answer goes.
    public func respond(to request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter) {
        let registry = self.registry
        executor.respond(writer) {
            HTTPResponse(
                status: .ok,
                headers: HTTPHeaders([("Content-Type", PrometheusText.contentType), ("Cache-Control", "no-store")]),
                body: .bytes(registry.render()))
        }
    }
}
