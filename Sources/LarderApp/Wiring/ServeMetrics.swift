public import HTTPServer
public import LarderAPI
public import Metrics

/// What `GET /metrics` of `larder serve` exposes, in this order: build and process basics, HTTP
/// requests and cache results (from the server's access records), then the groups the wiring
/// registers as it builds them (fetch, store).
public struct ServeMetrics: Sendable {
    /// Every collector.
    public let registry = MetricsRegistry()
    /// Counts the server's access records.
    public let http = HTTPMetrics()

    /// Creates the registry with the process and HTTP groups.
    public init() {
        registry.register(ProcessMetrics(version: LarderVersion.current))
        registry.register(http)
    }

    /// The server's per-request callback: counts the record, then logs it when the access log is on.
    /// - Parameter accessLogger: the access log, `nil` when off.
    /// - Returns: the callback for `HTTPServer`'s `accessLog`.
    public func accessRecordSink(accessLogger: AccessLogger?) -> @Sendable (HTTPAccessRecord) -> Void {
        let http = self.http
        guard let accessLogger else { return { record in http.record(record) } }
        return { record in
            http.record(record)
            accessLogger.log(record)
        }
    }
}
