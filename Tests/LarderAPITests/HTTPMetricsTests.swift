import CachePolicy
import HTTPCore
import LarderAPI
import LarderTesting
import Metrics
import TestSupport
import Testing

@testable import HTTPServer

/// `HTTPMetrics` counts the server's access records by route (never the raw path), status code and
/// `X-Cache`, and `/metrics` serves them.
@Suite struct HTTPMetricsTests {
    static let routes: [(String, MetricsRoute)] = [
        ("/fetch?url=http%3A%2F%2Fa%2F", .fetch), ("/fetch", .fetch), ("/fetches", .fetches), ("/fetchx", .other),
        ("/cache", .cache), ("/cache/abc/meta", .cache), ("/cache?host=a", .cache),
        ("/filters/explain?url=x", .filters),
        ("/healthz", .healthz), ("/livez", .livez), ("/readyz", .readyz), ("/livezz", .other), ("/metrics", .metrics),
        ("/openapi.yaml", .openapi), ("/openapi", .other),
        ("/", .other), ("*", .other), ("http://host/fetch?url=x", .other), ("", .other), ("//fetch", .other),
        ("/FETCH", .other), ("/unknown/fetch", .other),
    ]

    @Test(arguments: routes) func targetIsCountedUnderItsFirstSegment(target: String, route: MetricsRoute) {
        #expect(MetricsRoute.classify(target) == route)
    }

    static func record(_ target: String, status: Int, bytes: Int = 10, cache: String? = nil) -> HTTPAccessRecord {
        HTTPAccessRecord(
            method: .get, target: target, status: status, bytesSent: bytes, durationNanoseconds: 2_000_000,
            cacheStatus: cache, remoteAddress: HTTPAddress(ip: "127.0.0.1", port: 1, isLoopback: true), aborted: false)
    }

    @Test func recordsAreCountedByRouteAndCodeWithTheirBytes() {
        let metrics = HTTPMetrics()
        metrics.record(Self.record("/fetch?url=x", status: 200, bytes: 100))
        metrics.record(Self.record("/fetch?url=y", status: 200, bytes: 50))
        metrics.record(Self.record("/secret/path/123", status: 404, bytes: 7))
        #expect(metrics.requestCount(route: .fetch, code: 200) == 2)
        #expect(metrics.requestCount(route: .other, code: 404) == 1)
        #expect(metrics.requestCount(route: .fetch, code: 404) == 0)
        var text = PrometheusText()
        metrics.write(to: &text)
        #expect(text.text.contains("larder_http_requests_total{route=\"fetch\",code=\"200\"} 2\n"))
        #expect(text.text.contains("larder_http_response_bytes_total{route=\"fetch\"} 150\n"))
        #expect(text.text.contains("larder_http_request_duration_seconds_count{route=\"other\"} 1\n"))
        // The raw path never becomes a label.
        #expect(!text.text.contains("secret"))
    }

    @Test(arguments: XCache.allCases) func xCacheValueCountsItsResultOnly(result: XCache) {
        let metrics = HTTPMetrics()
        metrics.record(Self.record("/fetch?url=x", status: 200, cache: result.rawValue))
        for other in XCache.allCases {
            #expect(metrics.cacheResultCount(other) == (other == result ? 1 : 0))
        }
    }

    @Test(arguments: ["hit", "HITS", "", "MISS "]) func unknownXCacheValueCountsNoResult(value: String) {
        let metrics = HTTPMetrics()
        metrics.record(Self.record("/fetch?url=x", status: 200, cache: value))
        #expect(XCache.allCases.allSatisfy { metrics.cacheResultCount($0) == 0 })
    }

    @Test(arguments: [0, 99, 600, 1000, -1]) func impossibleStatusIsClampedNotTrapped(status: Int) {
        let metrics = HTTPMetrics()
        metrics.record(Self.record("/healthz", status: status))
        let total = (100...599).reduce(0) { $0 + metrics.requestCount(route: .healthz, code: $1) }
        #expect(total == 1)
    }

    @Test func hitMissAndConnectionsMoveAsRequestsHappenAndMetricsServesThem() async throws {
        try await withFetchHarness { harness in
            harness.origin.respond(to: "/m", with: .ok("metered").header("Cache-Control", "max-age=60"))
            let metrics = HTTPMetrics()
            let registry = MetricsRegistry()
            registry.register(metrics)
            registry.register(harness.service.metrics)
            var app = LarderTestApp(
                routes: LarderRoutes(
                    access: AdminAccess(token: nil), fetch: harness.service,
                    metrics: (MetricsHandler(registry: registry, executor: harness.service.executor), isPublic: true)),
                server: HTTPServerConfiguration(host: "127.0.0.1", port: 0, eventLoops: 1))
            app.onServer = { metrics.attach($0) }
            app.accessLog = { metrics.record($0) }
            try await app.test(.live) { client in
                try await Self.exercise(harness: harness, server: try #require(client.server), metrics: metrics)
            }
        }
    }

    /// Two hits and a miss through `server`, then a scrape of its `/metrics`.
    private static func exercise(harness: FetchTestHarness, server: HTTPServer, metrics: HTTPMetrics) async throws {
        func get(_ target: String) throws -> RawHTTPResponse {
            let client = try RawSocketClient(port: server.port, timeout: 30)
            defer { client.close() }
            try client.send("GET \(target) HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
            return try client.readResponse()
        }
        #expect(try get(harness.fetchPath("/m")).header("X-Cache") == "MISS")
        #expect(await harness.settle())
        #expect(try get(harness.fetchPath("/m")).header("X-Cache") == "HIT")
        #expect(try get(harness.fetchPath("/m")).header("X-Cache") == "HIT")
        // The access record is written after the last byte: wait for the third one to be counted.
        #expect(await waitUntil(timeout: .seconds(10)) { metrics.cacheResultCount(.hit) == 2 })
        #expect(metrics.cacheResultCount(.miss) == 1)

        let scrape = try get("/metrics")
        #expect(scrape.status == 200)
        #expect(scrape.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
        let text = scrape.text
        #expect(text.contains("larder_cache_results_total{result=\"hit\"} 2\n"))
        #expect(text.contains("larder_cache_results_total{result=\"miss\"} 1\n"))
        #expect(text.contains("larder_http_requests_total{route=\"fetch\",code=\"200\"} 3\n"))
        #expect(text.contains("larder_origin_requests_total{outcome=\"response\"} 1\n"))
        // The scrape's own connection is open while it is answered; four were accepted in all.
        #expect(Self.value("larder_http_connections_open", in: text).map { $0 >= 1 } == true)
        #expect(text.contains("larder_http_connections_accepted_total 4\n"))
    }

    /// The value of an unlabelled sample.
    static func value(_ name: String, in text: String) -> Int? {
        text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Int($0.dropFirst(name.count + 1)) }
    }
}
