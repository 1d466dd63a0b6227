import Foundation
import HTTPCore
import LarderTesting
import TestSupport
import Testing

/// Scrapes `serve`'s whole wiring live on 127.0.0.1:0 (`LarderTestApp(serving:)`: the server, the metrics
/// and the access records `serve` makes) and reads `/metrics` with the reference Prometheus text parser
/// (`prometheus_client.parser` from PyPI, scripts/python-requirements.txt): the output must parse, every
/// family must be typed, and the counts must match the requests made.
@Suite(.serialized) struct MetricsScrapeTests {
    /// Parses stdin with `text_string_to_metric_families` and prints one JSON object per sample; exits
    /// non-zero when the parser refuses the text, a family is untyped, or a name is not a metric name.
    static let parserScript = """
        import json, re, sys
        from prometheus_client.parser import text_string_to_metric_families
        text = sys.stdin.read()
        if not text.endswith("\\n"):
            sys.exit("exposition does not end in a line feed")
        name = re.compile(r"^[a-zA-Z_:][a-zA-Z0-9_:]*$")
        for family in text_string_to_metric_families(text):
            if family.type == "unknown":
                sys.exit("family without TYPE: " + family.name)
            for sample in family.samples:
                if not name.match(sample.name) or not all(name.match(label) for label in sample.labels):
                    sys.exit("bad name in " + sample.name)
                print(json.dumps({"family": family.name, "type": family.type, "name": sample.name,
                                  "labels": sample.labels, "value": sample.value}))
        """

    /// One parsed sample.
    struct Sample: Decodable, Equatable {
        var family: String
        var type: String
        var name: String
        var labels: [String: String]
        var value: Double
    }

    /// Runs the parser on `text`.
    /// - Returns: the samples, or `nil` when the parser (or the checks around it) refused the text.
    static func parse(_ text: String) throws -> [Sample]? {
        let process = try ChildProcess(
            "/usr/bin/env", ["python3", "-c", parserScript], pipeInput: true, standardOutput: .pipe)
        let (status, data) = process.communicate(Array(text.utf8))
        guard status == 0 else { return nil }
        return try String(decoding: data, as: UTF8.self).split(separator: "\n").map {
            try JSONDecoder().decode(Sample.self, from: Data($0.utf8))
        }
    }

    static let malformed: [String] = [
        "larder_x{route=\"fetch} 1\n",  // unterminated label value
        "# TYPE larder_x gauge\nlarder_x{a=1} 1\n",  // unquoted label value
        "# TYPE larder_x gauge\nlarder_x{a=\"x\"y\"} 1\n",  // a quote left unescaped
        "# TYPE larder_x gauge\nlarder_x{a=\"x\ny\"} 1\n",  // a raw line feed in a value
        "# TYPE larder_x counter\nlarder_x{a=\"1\"} one\n",  // not a number
        "# TYPE larder_x counter\nlarder_x 1",  // no final line feed
        "larder_untyped 1\n",  // no TYPE line
    ]

    @Test(arguments: malformed) func parserRefusesMalformedText(text: String) throws {
        #expect(try Self.parse(text) == nil)
    }

    @Test func parserAcceptsWellFormedText() throws {
        let samples = try #require(
            try Self.parse("# HELP a_total An \\\\ a.\n# TYPE a_total counter\na_total{l=\"x\\\"y\"} 2\n"))
        #expect(samples == [Sample(family: "a", type: "counter", name: "a_total", labels: ["l": "x\"y"], value: 2)])
    }

    @Test func liveScrapeParsesAndCountsTheRequestsMade() async throws {
        let origin = try StubOrigin()
        defer { origin.stop() }
        origin.respond(to: "/kept", with: StubOriginResponse.ok("kept body").header("Cache-Control", "max-age=600"))
        let directory = StorageTestDirectory()
        // Only the stub's own address is opened: 127.0.0.2 stays refused, for the SSRF counter.
        let app = try LarderTestApp(serving: [
            "db": directory.file(), "allow-network": "127.0.0.1/32", "sweep-interval": "0",
        ])
        try await app.test(.live) { client in
            func get(_ target: String) throws -> RawHTTPResponse { try client.request("GET", target) }
            func fetchTarget(_ url: String) -> String { "/fetch?url=" + url.percentEncoded() }

            #expect(try get(fetchTarget(origin.url("/kept"))).header("X-Cache") == "MISS")
            // The entry is committed before the fetch leaves the registry; a hit may need a moment.
            #expect(
                await waitUntil(timeout: .seconds(10)) {
                    (try? get(fetchTarget(origin.url("/kept"))).header("X-Cache")) == "HIT"
                })
            #expect(try get(fetchTarget("http://127.0.0.2:\(origin.port)/kept")).status == 403)
            #expect(try get("/no/such/path?secret=1").status == 404)
            #expect(try get("/healthz").status == 200)

            // Access records are counted after the last byte is written, and a fetch gives its place in the
            // store backlog back on its store queue after its caller is answered (the refused one too): scrape
            // until the healthz is in and the backlog is empty.
            var samples: [Sample] = []
            let counted = try await Self.scrapeUntil(get) { found in
                samples = found
                return Self.value(found, "larder_http_requests_total", ["route": "healthz", "code": "200"]) == 1
                    && Self.value(found, "larder_store_backlog_bytes") == 0
            }
            #expect(counted)
            func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
                Self.value(samples, name, labels)
            }
            let misses = try #require(value("larder_cache_results_total", ["result": "miss"]))
            let hits = try #require(value("larder_cache_results_total", ["result": "hit"]))
            #expect(misses >= 1)
            #expect(hits == 1)
            #expect(value("larder_http_requests_total", ["route": "fetch", "code": "403"]) == 1)
            #expect(value("larder_http_requests_total", ["route": "other", "code": "404"]) == 1)
            #expect(value("larder_origin_refused_addresses_total") == 1)
            #expect(value("larder_origin_requests_total", ["outcome": "address_refused"]) == 1)
            #expect(value("larder_origin_requests_total", ["outcome": "response"]) == 1)
            #expect(value("larder_origin_request_duration_seconds_count") == 2)
            #expect(value("larder_store_entries") == 1)
            #expect((value("larder_store_bytes") ?? 0) >= Double("kept body".utf8.count))
            #expect(value("larder_store_evictions_total") == 0)
            // The stored miss was committed in a group: one at least, each with at least one response.
            let groups = try #require(value("larder_store_commit_groups_total"))
            let grouped = try #require(value("larder_store_commit_group_entries_total"))
            #expect(groups >= 1 && grouped >= groups)
            // Every fetch is stored and settled by now: nothing waits to be written, or for room.
            #expect(value("larder_store_backlog_bytes") == 0)
            #expect(value("larder_store_backlog_waiting") == 0)
            // Built when the store opened: the smallest tables, 8 KiB each, of the keys held and of the URLs
            // that vary.
            #expect(value("larder_store_key_filter_bytes") == 16_384)
            // The hit read the entry from the store and kept it in memory: its body and head are counted.
            #expect((value("larder_memory_tier_bytes") ?? 0) > Double("kept body".utf8.count))
            #expect((value("larder_http_connections_open") ?? 0) >= 1)
            #expect((value("process_resident_memory_bytes") ?? 0) > 0)
            #expect((value("process_open_fds") ?? 0) > 0)
            #expect(samples.contains { $0.name == "larder_build_info" && $0.value == 1 && $0.labels["version"] != nil })
            let fetchBytes = try #require(value("larder_http_response_bytes_total", ["route": "fetch"]))
            #expect(fetchBytes >= Double(2 * "kept body".utf8.count))
            let histogramTypes = Set(samples.filter { $0.type == "histogram" }.map(\.family))
            #expect(
                histogramTypes.isSuperset(of: [
                    "larder_http_request_duration_seconds", "larder_origin_request_duration_seconds",
                ]))
            // Routes are a fixed set: the raw path of the 404 never became a label.
            #expect(!samples.contains { $0.labels.values.contains { $0.contains("secret") || $0.contains("/") } })
            let routes = Set(samples.compactMap { $0.labels["route"] })
            #expect(
                routes.isSubset(of: [
                    "fetch", "cache", "filters", "fetches", "livez", "healthz", "readyz", "metrics", "openapi", "other",
                ]))
        }
    }

    /// Scrapes `/metrics` (parsing each answer) until `done` accepts the samples, for at most 10 s.
    static func scrapeUntil(
        _ get: (String) throws -> RawHTTPResponse, _ done: ([Sample]) -> Bool
    ) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            let response = try get("/metrics")
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
            let samples = try #require(try parse(response.text), "the Prometheus parser refused:\n\(response.text)")
            if done(samples) { return true }
            if ContinuousClock.now > deadline { return false }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// The value of the sample named `name` whose labels are exactly `labels` (ignoring none).
    static func value(_ samples: [Sample], _ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }
}
