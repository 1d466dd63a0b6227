import CacheCore
import CachePolicy
import Foundation
import HTTPCore
import LarderAPI
import Metrics
import Storage
import TestSupport
import Testing
import Upstream

/// RFC 9111 §4.2.4: when the origin cannot be reached (refused, closed before a head, timed out), a stale
/// entry answers by default within `--stale-if-disconnected` or the filter's `staleIfDisconnected`, marked
/// `X-Cache: STALE` and `Cache-Status: fwd=stale` without `fwd-status`; never against `must-revalidate`,
/// `proxy-revalidate`, `s-maxage` or `no-cache`, and never for a 5xx (that is `stale-if-error`'s).
@Suite struct FetchStaleDisconnectedTests {
    /// Stores `/e` with `Cache-Control: control`, then moves the clock `elapsed` seconds on.
    private static func storeThenAge(
        _ harness: FetchTestHarness, _ path: String = "/e", control: String = "max-age=10", elapsed: Double = 60
    ) async throws {
        harness.origin.respond(to: path, with: .ok("kept").header("Cache-Control", control))
        let first = try harness.fetch(path)
        #expect(first.header("X-Cache") == "MISS")
        #expect(await harness.settle())
        harness.clock.advance(by: elapsed)
    }

    /// Checks that a response is the stored entry served stale because the origin was unreachable.
    private static func expectStaleDisconnected(
        _ response: RawHTTPResponse, detail: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(response.status == 200, sourceLocation: sourceLocation)
        #expect(response.text == "kept", sourceLocation: sourceLocation)
        #expect(response.header("X-Cache") == "STALE", sourceLocation: sourceLocation)
        #expect(response.header("Age") == "60", sourceLocation: sourceLocation)
        let status = response.header("Cache-Status") ?? ""
        #expect(
            status == "Larder; fwd=stale; ttl=-50; detail=\"stale-if-disconnected: \(detail)\"", "\(status)",
            sourceLocation: sourceLocation)
    }

    @Test func aStoppedOriginIsAnsweredFromTheCache() async throws {
        try await withFetchHarness { harness in
            try await Self.storeThenAge(harness)
            harness.origin.stop()
            Self.expectStaleDisconnected(try harness.fetch("/e"), detail: "origin-unreachable")
            #expect(harness.service.metrics.staleDisconnectedCount == 1)
        }
    }

    @Test func anOriginThatClosesBeforeTheHeadIsAnsweredFromTheCache() async throws {
        try await withFetchHarness { harness in
            harness.origin.respond(
                to: "/e", sequence: [.ok("kept").header("Cache-Control", "max-age=10"), .raw("")])
            _ = try harness.fetch("/e")
            #expect(await harness.settle())
            harness.clock.advance(by: 60)
            Self.expectStaleDisconnected(try harness.fetch("/e"), detail: "origin-protocol-error")
            #expect(harness.origin.requestCount(for: "/e") >= 2)
            #expect(harness.service.metrics.staleDisconnectedCount == 1)
        }
    }

    @Test func anOriginThatTimesOutIsAnsweredFromTheCache() async throws {
        let limits = OriginLimits(connectTimeout: .seconds(5), totalTimeout: .milliseconds(800))
        try await withFetchHarness(limits: limits) { harness in
            harness.origin.respond(to: "/e", sequence: [.ok("kept").header("Cache-Control", "max-age=10"), .silent])
            _ = try harness.fetch("/e")
            #expect(await harness.settle())
            harness.clock.advance(by: 60)
            Self.expectStaleDisconnected(try harness.fetch("/e"), detail: "origin-timeout")
            #expect(harness.service.metrics.staleDisconnectedCount == 1)
        }
    }

    @Test func aCallerWhoseWaitRunsOutIsAnsweredFromTheCache() async throws {
        try await withFetchHarness(configuration: FetchConfiguration(waiterTimeout: .milliseconds(800))) { harness in
            harness.origin.respond(to: "/e", sequence: [.ok("kept").header("Cache-Control", "max-age=10"), .silent])
            _ = try harness.fetch("/e")
            #expect(await harness.settle())
            harness.clock.advance(by: 60)
            Self.expectStaleDisconnected(try harness.fetch("/e"), detail: "origin-timeout")
        }
    }

    @Test(arguments: [502, 503])
    func a5xxWithoutStaleIfErrorIsRelayed(status: Int) async throws {
        try await withFetchHarness { harness in
            harness.origin.respond(
                to: "/e", sequence: [.ok("kept").header("Cache-Control", "max-age=10"), .status(status)])
            _ = try harness.fetch("/e")
            #expect(await harness.settle())
            harness.clock.advance(by: 60)
            let response = try harness.fetch("/e")
            #expect(response.status == status)
            #expect(response.text != "kept")
            #expect(response.header("X-Cache") == "MISS")
            #expect(harness.service.metrics.staleDisconnectedCount == 0)
        }
    }

    @Test(arguments: ["max-age=10, must-revalidate", "max-age=10, proxy-revalidate", "s-maxage=10", "no-cache"])
    func directivesThatForbidStaleAre502(control: String) async throws {
        try await withFetchHarness { harness in
            try await Self.storeThenAge(harness, control: control)
            harness.origin.stop()
            let response = try harness.fetch("/e")
            #expect(response.status == 502)
            #expect(response.text.contains("origin-unreachable"))
            #expect(harness.service.metrics.staleDisconnectedCount == 0)
        }
    }

    @Test func theSettingBoundsHowStale() async throws {
        try await withFetchHarness(configuration: FetchConfiguration(staleIfDisconnected: 100)) { harness in
            try await Self.storeThenAge(harness)
            harness.origin.stop()
            Self.expectStaleDisconnected(try harness.fetch("/e"), detail: "origin-unreachable")
            harness.clock.advance(by: 50)  // 100 s stale: the edge of the window
            #expect(try harness.fetch("/e").text == "kept")
            harness.clock.advance(by: 1)
            let late = try harness.fetch("/e")
            #expect(late.status == 502)
            #expect(harness.service.metrics.staleDisconnectedCount == 2)
        }
    }

    @Test func aFilterWindowReplacesTheSetting() async throws {
        let decision = FilterDecision(filterName: "offline", overrides: PolicyOverrides(staleIfDisconnected: 1000))
        let configuration = FetchConfiguration(staleIfDisconnected: 100)
        try await withFetchHarness(decision: decision, configuration: configuration) { harness in
            try await Self.storeThenAge(harness, elapsed: 500)
            harness.origin.stop()
            let response = try harness.fetch("/e")
            #expect(response.text == "kept")
            #expect(response.header("X-Cache") == "STALE")
        }
    }

    @Test func aFilterCanTurnItOff() async throws {
        let decision = FilterDecision(filterName: "live", overrides: PolicyOverrides(staleIfDisconnected: 0))
        try await withFetchHarness(decision: decision) { harness in
            try await Self.storeThenAge(harness)
            harness.origin.stop()
            #expect(try harness.fetch("/e").status == 502)
        }
    }

    @Test func theSweepKeepsEntriesUntilTheWindowEnds() async throws {
        try await withFetchHarness(configuration: FetchConfiguration(staleIfDisconnected: 100)) { harness in
            try await Self.storeThenAge(harness, "/kept", elapsed: 0)
            try await Self.storeThenAge(harness, "/strict", control: "max-age=10, must-revalidate", elapsed: 0)
            let kept = CacheKey.make(canonicalURL: harness.origin.url("/kept"))
            let strict = CacheKey.make(canonicalURL: harness.origin.url("/strict"))
            let start = harness.clock.now
            // 11 s: both expired; the one that may never be served stale goes.
            #expect(try harness.store.sweep(now: start.addingTimeInterval(11)) == 1)
            #expect(try harness.store.entry(for: strict) == nil)
            #expect(try harness.store.entry(for: kept)?.staleAllowance == 100)
            #expect(try harness.store.sweep(now: start.addingTimeInterval(110)) == 0)
            #expect(try harness.store.entry(for: kept) != nil)
            #expect(try harness.store.sweep(now: start.addingTimeInterval(111)) == 1)
            #expect(try harness.store.entry(for: kept) == nil)
        }
    }

    @Test func withTheSettingOffExpiredEntriesAreSwept() async throws {
        try await withFetchHarness(configuration: FetchConfiguration(staleIfDisconnected: 0)) { harness in
            try await Self.storeThenAge(harness, elapsed: 0)
            let key = CacheKey.make(canonicalURL: harness.origin.url("/e"))
            #expect(try harness.store.entry(for: key)?.staleAllowance == 0)
            #expect(try harness.store.sweep(now: harness.clock.now.addingTimeInterval(11)) == 1)
        }
    }

    @Test func staleAnswersAreCountedInMetrics() async throws {
        try await withFetchHarness { harness in
            try await Self.storeThenAge(harness)
            #expect(FetchMetricsTests.scrape(harness).contains("\nlarder_stale_if_disconnected_total 0\n"))
            harness.origin.stop()
            _ = try harness.fetch("/e")
            _ = try harness.fetch("/e")
            let text = FetchMetricsTests.scrape(harness)
            #expect(text.contains("# TYPE larder_stale_if_disconnected_total counter"))
            #expect(text.contains("\nlarder_stale_if_disconnected_total 2\n"), "\(text)")
        }
    }
}
