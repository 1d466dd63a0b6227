import CacheCore
import Foundation
import HTTPCore
import LarderAPI
import Storage
import TestSupport
import Testing

/// Small fresh entries answered from memory (`HotEntryCache`) stay consistent with the store
/// (`HotInvalidatingStore`): deletes, purges, expiry and replacement all reach them.
@Suite struct FetchHotEntryTests {
    /// Stores `/h` and serves it twice, so that the second hit came from memory.
    static func warm(_ harness: FetchTestHarness, maxAge: Int = 60) async throws {
        harness.origin.respond(to: "/h", with: .ok("hot body").header("Cache-Control", "max-age=\(maxAge)"))
        _ = try harness.fetch("/h")
        #expect(await harness.settle())
        for _ in 0..<2 {
            let hit = try harness.fetch("/h")
            #expect(hit.header("X-Cache") == "HIT")
            #expect(hit.text == "hot body")
        }
    }

    @Test func deleteThroughTheServiceStoreReachesMemory() async throws {
        try await withFetchHarness { harness in
            try await Self.warm(harness)
            let key = try #require(CacheKey(hex: harness.key("/h")))
            #expect(try harness.service.store.delete(key))
            #expect(try harness.fetch("/h").header("X-Cache") == "MISS")
            #expect(harness.origin.requestCount(for: "/h") == 2)
        }
    }

    @Test(arguments: [CachePurgeScope.all, .host("127.0.0.1"), .urlPrefix("http://127.0.0.1")])
    func purgeReachesMemory(scope: CachePurgeScope) async throws {
        try await withFetchHarness { harness in
            try await Self.warm(harness)
            #expect(try harness.service.store.purge(scope) == 1)
            #expect(try harness.fetch("/h").header("X-Cache") == "MISS")
            #expect(harness.origin.requestCount(for: "/h") == 2)
        }
    }

    @Test func expiredHotEntryIsNotServedFromMemory() async throws {
        try await withFetchHarness { harness in
            try await Self.warm(harness, maxAge: 10)
            harness.clock.advance(by: 11)
            #expect(try harness.fetch("/h").header("X-Cache") == "MISS")
            #expect(harness.origin.requestCount(for: "/h") == 2)
        }
    }

    @Test func memoryAnswersAgeAndHeadersLikeTheStore() async throws {
        try await withFetchHarness { harness in
            try await Self.warm(harness)
            harness.clock.advance(by: 7)
            let hit = try harness.fetch("/h")
            #expect(hit.header("Age") == "7")
            #expect(hit.header("Cache-Status") == "Larder; hit; ttl=53")
            #expect(hit.header("Content-Type") == "text/plain; charset=utf-8")
            #expect(hit.header("X-Cache-Key") == harness.key("/h"))
            let head = try harness.fetch("/h", method: "HEAD")
            #expect(head.header("Content-Length") == "8")
            #expect(harness.origin.requestCount(for: "/h") == 1)
        }
    }
}
