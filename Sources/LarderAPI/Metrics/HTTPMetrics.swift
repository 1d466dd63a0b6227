public import CachePolicy
public import HTTPServer
public import Metrics

/// Request figures of the HTTP server, counted from its per-request access records: requests by
/// route and status code, their durations per route, bytes served, `/fetch` answers by `X-Cache`, and
/// (once a server is attached) open and accepted connections.
///
/// Every series is allocated at start-up; `record(_:)` classifies the target by its first path
/// segment and does a handful of atomic adds, with no dictionary and no string building.
public final class HTTPMetrics: MetricsSource {
    /// Status codes 100...599, one slot each.
    private static let codeSlots = 500
    private let requests = AtomicCounters(count: MetricsRoute.allCases.count * HTTPMetrics.codeSlots)
    private let responseBytes = AtomicCounters(count: MetricsRoute.allCases.count)
    private let durations: [Histogram] = MetricsRoute.allCases.map { _ in Histogram() }
    private let cacheResults = AtomicCounters(count: XCache.allCases.count + 1)
    private let aborted = Counter()
    private let server = ServerLink()

    /// Creates the metrics, all at 0.
    public init() {}

    /// Counts one answered request; give this to `HTTPServer`'s `accessLog`.
    /// - Parameter record: the server's access record.
    public func record(_ record: HTTPAccessRecord) {
        let route = MetricsRoute.classify(record.target)
        let code = min(max(record.status, 100), 599) - 100
        requests.add(1, at: route.rawValue * Self.codeSlots + code)
        responseBytes.add(record.bytesSent, at: route.rawValue)
        durations[route.rawValue].observe(nanoseconds: record.durationNanoseconds)
        if record.aborted { aborted.increment() }
        if let cache = record.cacheStatus {
            // Five short comparisons; an unknown value counts under the slot after the known ones.
            let index = XCache(rawValue: cache).flatMap { XCache.allCases.firstIndex(of: $0) }
            cacheResults.add(1, at: index ?? XCache.allCases.count)
        }
    }

    /// Reads open and accepted connections from a server when scraped.
    /// - Parameter server: the server whose access records this counts.
    public func attach(_ server: HTTPServer) {
        self.server.attach(server)
    }

    /// Requests counted for a route and status code.
    /// - Parameters:
    ///   - route: the route.
    ///   - code: the status code.
    /// - Returns: the count.
    public func requestCount(route: MetricsRoute, code: Int) -> Int {
        guard (100...599).contains(code) else { return 0 }
        return requests.value(at: route.rawValue * Self.codeSlots + code - 100)
    }

    /// `/fetch` answers counted with an `X-Cache` value.
    /// - Parameter result: the value.
    /// - Returns: the count.
    public func cacheResultCount(_ result: XCache) -> Int {
        cacheResults.value(at: XCache.allCases.firstIndex(of: result) ?? XCache.allCases.count)
    }

    /// Writes the request, duration, byte, cache-result and connection families.
    /// - Parameter text: the exposition being built.
    public func write(to text: inout PrometheusText) {
        text.family(
            "larder_http_requests_total", type: .counter, help: "Requests answered, by route and status code.")
        for route in MetricsRoute.allCases {
            for slot in 0..<Self.codeSlots {
                let value = requests.value(at: route.rawValue * Self.codeSlots + slot)
                guard value > 0 else { continue }
                text.sample(
                    "larder_http_requests_total", labels: [("route", route.label), ("code", String(slot + 100))],
                    value: value)
            }
        }
        text.family(
            "larder_http_request_duration_seconds", type: .histogram,
            help: "From a complete request to its last byte written, by route.")
        for route in MetricsRoute.allCases {
            let snapshot = durations[route.rawValue].snapshot
            guard snapshot.count > 0 else { continue }
            text.histogram("larder_http_request_duration_seconds", labels: [("route", route.label)], snapshot: snapshot)
        }
        text.family(
            "larder_http_response_bytes_total", type: .counter,
            help: "Content bytes written in responses (not heads; 0 for HEAD), by route.", label: "route",
            values: responseBytes.samples(by: MetricsRoute.self))
        text.family(
            "larder_http_responses_aborted_total", type: .counter,
            help: "Responses cut short: the client left or the body source failed.", value: aborted.value)
        text.family(
            "larder_cache_results_total", type: .counter,
            help: "Answers of /fetch by their X-Cache value (hit, miss, stale, revalidated, bypass).", label: "result",
            values: XCache.allCases.enumerated().map { ($1.rawValue.lowercased(), cacheResults.value(at: $0)) })
        if let connections = server.counts {
            text.family(
                "larder_http_connections_open", type: .gauge, help: "Client connections being served now.",
                value: connections.open)
            text.family(
                "larder_http_connections_accepted_total", type: .counter,
                help: "Client connections accepted (including those refused at the connection limit).",
                value: connections.accepted)
        }
    }
}
