import CacheCore
import Foundation
import HTTPCore
import LarderAPI
import Storage
import TestSupport
import Testing

/// The hot tier as `/fetch` uses it: prepared heads carry the right `Age`, `Cache-Status` and `Date`,
/// its settings decide what is kept, and gzip callers are answered from memory too. To tell a memory
/// answer from a store answer, the entry is deleted from SQLite behind the service's back: only memory
/// can still say HIT.
@Suite struct FetchHotTierTests {
    static func deleteBehindTheService(_ harness: FetchTestHarness, _ path: String) throws {
        let key = try #require(CacheKey(hex: harness.key(path)))
        #expect(try harness.store.delete(key))
    }

    @Test func preparedHeadFollowsTheClock() async throws {
        try await withFetchHarness { harness in
            try await FetchHotEntryTests.warm(harness)
            try Self.deleteBehindTheService(harness, "/h")
            for (advance, age, ttl) in [(3, "3", "57"), (0, "3", "57"), (2, "5", "55"), (40, "45", "15")] {
                harness.clock.advance(by: Double(advance))
                let hit = try harness.fetch("/h")
                #expect(hit.header("X-Cache") == "HIT")
                #expect(hit.header("Age") == age)
                #expect(hit.header("Cache-Status") == "Larder; hit; ttl=\(ttl)")
                #expect(hit.text == "hot body")
                let date = try #require(hit.header("Date").flatMap { HTTPDate($0) })
                #expect(abs(Double(date.secondsSinceEpoch) - Date().timeIntervalSince1970) < 5)
            }
        }
    }

    @Test(arguments: [
        ("Range", "bytes=0-3"), ("range", "bytes=0-3"), ("If-Range", "\"v1\""), ("If-None-Match", "\"v1\""),
        ("IF-MODIFIED-SINCE", "Sun, 06 Nov 1994 08:49:37 GMT"), ("Authorization", "Bearer t"),
    ])
    func requestsMemoryCannotAnswerGoToTheStore(name: String, value: String) async throws {
        try await withFetchHarness { harness in
            try await FetchHotEntryTests.warm(harness)
            try Self.deleteBehindTheService(harness, "/h")
            #expect(try harness.fetch("/h", headers: [("Accept", "*/*")]).header("X-Cache") == "HIT")
            #expect(try harness.fetch("/h", headers: [(name, value)]).header("X-Cache") != "HIT")
        }
    }

    @Test(arguments: [(0, "MISS"), (1 << 20, "HIT")])
    func theBudgetSettingDecidesWhatMemoryAnswers(budget: Int, afterDelete: String) async throws {
        try await withFetchHarness(configuration: FetchConfiguration(hotBudgetBytes: budget)) { harness in
            try await FetchHotEntryTests.warm(harness)
            try Self.deleteBehindTheService(harness, "/h")
            #expect(try harness.fetch("/h").header("X-Cache") == afterDelete)
        }
    }

    @Test(arguments: [(1 << 20, "MISS"), (4 << 20, "HIT")])
    func bodiesUpToTheLargestEntryAreKeptWhole(maxEntry: Int, afterDelete: String) async throws {
        let body = CacheCoreFixtures.randomBody(length: 2 << 20)
        try await withFetchHarness(configuration: FetchConfiguration(hotMaxEntryBytes: maxEntry)) { harness in
            harness.origin.respond(to: "/big", with: .ok(bytes: body).header("Cache-Control", "max-age=60"))
            #expect(try harness.fetch("/big").body == body)
            #expect(await harness.settle())
            let stored = try harness.fetch("/big")
            #expect(stored.header("X-Cache") == "HIT")
            #expect(stored.body == body)
            try Self.deleteBehindTheService(harness, "/big")
            let again = try harness.fetch("/big")
            #expect(again.header("X-Cache") == afterDelete)
            #expect(again.body == body)
        }
    }

    @Test func gzipCallersAreAnsweredFromMemoryWithTheStoredMember() async throws {
        try await withFetchHarness { harness in
            let body = CacheCoreFixtures.compressibleBody(length: 50_000)
            harness.origin.respond(
                to: "/j", with: .ok(bytes: body, contentType: "application/json").header("Cache-Control", "max-age=60"))
            _ = try harness.fetch("/j")
            #expect(await harness.settle())
            let fromStore = try harness.fetch("/j", headers: [("Accept-Encoding", "gzip")])
            #expect(fromStore.header("Content-Encoding") == "gzip")
            try Self.deleteBehindTheService(harness, "/j")
            let fromMemory = try harness.fetch("/j", headers: [("Accept-Encoding", "gzip, deflate")])
            #expect(fromMemory.header("X-Cache") == "HIT")
            #expect(fromMemory.header("Content-Encoding") == "gzip")
            #expect(fromMemory.header("Vary") == "Accept-Encoding")
            #expect(fromMemory.header("Content-Length") == String(fromStore.body.count))
            #expect(fromMemory.body == fromStore.body)
            #expect(try gunzip(fromMemory.body) == body)
            #expect(harness.origin.requestCount(for: "/j") == 1)
        }
    }

    @Test func identityCallerIsNotGivenTheGzipForm() async throws {
        try await withFetchHarness { harness in
            let body = CacheCoreFixtures.compressibleBody(length: 20_000)
            harness.origin.respond(
                to: "/k", with: .ok(bytes: body, contentType: "text/plain").header("Cache-Control", "max-age=60"))
            _ = try harness.fetch("/k")
            #expect(await harness.settle())
            _ = try harness.fetch("/k", headers: [("Accept-Encoding", "gzip")])
            let identity = try harness.fetch("/k")
            #expect(identity.header("Content-Encoding") == nil)
            #expect(identity.body == body)
        }
    }
}
