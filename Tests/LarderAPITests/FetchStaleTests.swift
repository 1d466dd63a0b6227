import CacheCore
import CachePolicy
import Foundation
import HTTPCore
import LarderAPI
import Storage
import TestSupport
import Testing

/// RFC 5861: `stale-if-error` when the origin fails, `stale-while-revalidate` with a background refresh.
@Suite struct FetchStaleTests {
    @Test func staleEntryIsServedWhenOriginIsDown() async throws {
        try await withFetchHarness { harness in
            harness.origin.respond(
                to: "/e", with: .ok("kept").header("Cache-Control", "max-age=10, stale-if-error=600"))
            _ = try harness.fetch("/e")
            #expect(await harness.settle())
            harness.clock.advance(by: 60)
            harness.origin.stop()
            let response = try harness.fetch("/e")
            #expect(response.status == 200)
            #expect(response.text == "kept")
            #expect(response.header("X-Cache") == "STALE")
            #expect(response.header("Cache-Status")?.contains("stale-if-error") == true)
            #expect(harness.origin.requestCount(for: "/e") == 1)
        }
    }

    @Test func staleEntryIsServedWhenOriginAnswers5xx() async throws {
        try await withFetchHarness { harness in
            harness.origin.respond(
                to: "/e",
                sequence: [
                    .ok("kept").header("Cache-Control", "max-age=10, stale-if-error=600"), .status(503),
                ])
            _ = try harness.fetch("/e")
            #expect(await harness.settle())
            harness.clock.advance(by: 60)
            let response = try harness.fetch("/e")
            #expect(response.text == "kept")
            #expect(response.header("X-Cache") == "STALE")
            #expect(harness.origin.requestCount(for: "/e") == 2)
        }
    }

    @Test func withoutStaleIfErrorOrStaleIfDisconnectedADownOriginIs502() async throws {
        try await withFetchHarness(configuration: FetchConfiguration(staleIfDisconnected: 0)) { harness in
            harness.origin.respond(to: "/e", with: .ok("kept").header("Cache-Control", "max-age=10"))
            _ = try harness.fetch("/e")
            #expect(await harness.settle())
            harness.clock.advance(by: 60)
            harness.origin.stop()
            let response = try harness.fetch("/e")
            #expect(response.status == 502)
            #expect(response.text.contains("origin-unreachable"))
        }
    }

    @Test func staleWhileRevalidateServesStaleAndRefreshesInTheBackground() async throws {
        try await withFetchHarness { harness in
            let gate = OriginGate()
            harness.origin.respond(to: "/w") { request in
                guard request.sequence > 1 else {
                    return .ok("first").header("Cache-Control", "max-age=10, stale-while-revalidate=600")
                }
                gate.pass()
                return .ok("second").header("Cache-Control", "max-age=10, stale-while-revalidate=600")
            }
            _ = try harness.fetch("/w")
            #expect(await harness.settle())
            harness.clock.advance(by: 30)
            let stale = try harness.fetch("/w")
            #expect(stale.text == "first")
            #expect(stale.header("X-Cache") == "STALE")
            // A second stale request while the refresh runs does not start another one.
            #expect(try harness.fetch("/w").text == "first")
            gate.open()
            #expect(await harness.origin.waitForRequests(2, timeout: .seconds(20)))
            #expect(await harness.settle())
            let refreshed = try harness.fetch("/w")
            #expect(refreshed.text == "second")
            #expect(refreshed.header("X-Cache") == "HIT")
            #expect(harness.origin.requestCount(for: "/w") == 2)
        }
    }

    @Test func filtersStaleIfErrorWidensTheWindow() async throws {
        let decision = FilterDecision(filterName: "sie", overrides: PolicyOverrides(staleIfError: 3600))
        try await withFetchHarness(decision: decision) { harness in
            harness.origin.respond(to: "/f", with: .ok("kept").header("Cache-Control", "max-age=10"))
            _ = try harness.fetch("/f")
            #expect(await harness.settle())
            harness.clock.advance(by: 600)
            harness.origin.stop()
            let response = try harness.fetch("/f")
            #expect(response.text == "kept")
            #expect(response.header("X-Cache") == "STALE")
        }
    }
}
