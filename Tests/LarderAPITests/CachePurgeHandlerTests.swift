import CacheCore
import Foundation
import LarderAPI
import Storage
import TestSupport
import Testing

struct CachePurgeHandlerTests {
    @Test func deletingOneEntryAnswers204AndThenItIsGone() async throws {
        try await withHarness { harness in
            let entry = try harness.put("https://a.example/del", [1, 2, 3])
            let other = try harness.put("https://a.example/keep", [4, 5, 6])
            let response = try harness.request("DELETE", "/cache/\(entry.key.hex)")
            #expect(response.status == 204)
            #expect(try harness.request("GET", "/cache/\(entry.key.hex)").status == 404)
            #expect(try harness.request("DELETE", "/cache/\(entry.key.hex)").status == 404)
            #expect(try sameBytes(harness.request("GET", "/cache/\(other.key.hex)").body, [4, 5, 6]))
        }
    }

    @Test(
        arguments: [
            ("?host=a.example", 3, ["https://b.example/1", "https://b.example/2/x"]),
            ("?host=A.Example", 3, ["https://b.example/1", "https://b.example/2/x"]),
            (
                "?prefix=https://b.example/2/", 1,
                ["https://a.example/1", "https://a.example/2", "https://a.example/3/x", "https://b.example/1"]
            ),
            (
                "?prefix=https%3A%2F%2Fa.example%2F3", 1,
                ["https://a.example/1", "https://a.example/2", "https://b.example/1", "https://b.example/2/x"]
            ),
            (
                "?host=c.example", 0,
                [
                    "https://a.example/1", "https://a.example/2", "https://a.example/3/x", "https://b.example/1",
                    "https://b.example/2/x",
                ]
            ),
            (
                "?host=a.example&prefix=https://a.example/3", 1,
                ["https://a.example/1", "https://a.example/2", "https://b.example/1", "https://b.example/2/x"]
            ),
            ("", 5, []),
        ] as [(String, Int, [String])])
    func purgeCountsWhatItDeletesAndLeavesTheRest(_ query: String, _ purged: Int, _ left: [String]) async throws {
        try await withHarness { harness in
            for url in [
                "https://a.example/1", "https://a.example/2", "https://a.example/3/x", "https://b.example/1",
                "https://b.example/2/x",
            ] {
                try harness.put(url, Array(url.utf8))
            }
            let response = try harness.request("DELETE", "/cache" + query)
            #expect(response.status == 200)
            #expect(try CacheAPIHarness.json(response)["purged"] as? Int == purged)
            let remaining = try harness.store.list(CacheEntryQuery(limit: 100)).entries.map(\.url).sorted()
            #expect(remaining == left)
        }
    }

    @Test(arguments: ["?host=a&host=b", "?hots=a.example", "?host=", "?all=1", "?soft=maybe"])
    func aPurgeWithABadQueryIs400AndDeletesNothing(_ query: String) async throws {
        try await withHarness { harness in
            try harness.put("https://a.example/1", [1])
            let response = try harness.request("DELETE", "/cache" + query)
            #expect(response.status == 400)
            #expect(try harness.store.stats().entryCount == 1)
        }
    }
}
