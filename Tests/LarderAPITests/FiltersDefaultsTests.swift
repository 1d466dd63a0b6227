import CacheCore
import CachePolicy
import Foundation
import Storage
import TestSupport
import Testing

/// `POST /filters/defaults`: the default chain back after it was emptied, with `If-Match` honoured,
/// saved like any change; `defaults` is a route, so no filter may take the name.
@Suite struct FiltersDefaultsTests {
    @Test func defaultsComeBackAfterEveryFilterWasRemoved() async throws {
        try await withFiltersHarness { harness, _ in
            let emptied = try harness.request("DELETE", "/filters")
            #expect(try FiltersAPIHarness.names(emptied).isEmpty)
            #expect(emptied.header("ETag") == "\"2\"")

            let stale = try harness.request("POST", "/filters/defaults", headers: [("If-Match", "\"1\"")])
            #expect(stale.status == 412)
            #expect(stale.header("Content-Type") == "application/problem+json")
            #expect(harness.registry.chain.filters.isEmpty, "a stale precondition changes nothing")

            let restored = try harness.request("POST", "/filters/defaults", headers: [("If-Match", "\"2\"")])
            #expect(restored.status == 200)
            #expect(restored.header("ETag") == "\"3\"")
            #expect(try FiltersAPIHarness.names(restored) == ["images", "images-read-only"])
            #expect(
                try harness.store.loadFilterChain().filters.map(\.name) == ["images", "images-read-only"],
                "saved, not only in memory")
        }
    }

    @Test func defaultsIsAReservedFilterName() async throws {
        try await withFiltersHarness { harness, _ in
            let refused = try harness.request("POST", "/filters", body: #"{"name":"defaults","match":{}}"#)
            #expect(refused.status == 400)
            #expect(refused.text.contains(#""path":"name""#), "\(refused.text)")
            let unknownQuery = try harness.request("POST", "/filters/defaults?all=1")
            #expect(unknownQuery.status == 400)
        }
    }
}
