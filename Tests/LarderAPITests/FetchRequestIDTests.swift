import HTTPCore
import TestSupport
import Testing

@testable import LarderAPI

/// `/fetch` and request identifiers: the origin gets the caller's usable `X-Request-Id` or the one
/// Larder made (the one the caller gets back), and an identifier stored with an origin's answer is
/// never replayed on a hit.
@Suite struct FetchRequestIDTests {
    static func ids(_ response: RawHTTPResponse) -> [String] {
        response.headers.filter { $0.name.lowercased() == "x-request-id" }.map(\.value)
    }

    @Test func originGetsTheCallersUsableIDOrTheOneLarderMade() async throws {
        try await withFetchHarness { harness in
            harness.origin.respond(to: "/given", with: .ok("g").header("Cache-Control", "no-store"))
            harness.origin.respond(to: "/made", with: .ok("m").header("Cache-Control", "no-store"))
            let given = try harness.fetch("/given", headers: [("X-Request-Id", "caller-1")])
            #expect(Self.ids(given) == ["caller-1"])
            let made = try harness.fetch("/made", headers: [("X-Request-Id", "has space")])
            let madeID = try #require(Self.ids(made).first)
            #expect(madeID != "has space")

            let seen = harness.origin.requests.map { ($0.path, $0.headers.values(for: "X-Request-Id")) }
            #expect(seen.first { $0.0 == "/given" }?.1 == ["caller-1"])
            #expect(seen.first { $0.0 == "/made" }?.1 == [madeID])
        }
    }

    @Test func storedOriginIDIsNotReplayedOnAHit() async throws {
        try await withFetchHarness { harness in
            harness.origin.respond(
                to: "/kept", with: .ok("k").header("Cache-Control", "max-age=600").header("X-Request-Id", "origin-9"))
            let miss = try harness.fetch("/kept", headers: [("X-Request-Id", "first")])
            #expect(Self.ids(miss) == ["first"])
            #expect(await harness.settle())
            let hit = try harness.fetch("/kept", headers: [("X-Request-Id", "second")])
            #expect(hit.header("X-Cache") == "HIT")
            #expect(Self.ids(hit) == ["second"])
            #expect(harness.origin.requestCount == 1)
        }
    }
}
