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
            #expect(try sameBytes(harness.fetch("/big").body, body))
            #expect(await harness.settle())
            let stored = try harness.fetch("/big")
            #expect(stored.header("X-Cache") == "HIT")
            #expect(sameBytes(stored.body, body))
            try Self.deleteBehindTheService(harness, "/big")
            let again = try harness.fetch("/big")
            #expect(again.header("X-Cache") == afterDelete)
            #expect(sameBytes(again.body, body))
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
            #expect(sameBytes(fromMemory.body, fromStore.body))
            #expect(try sameBytes(gunzip(fromMemory.body), body))
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
            #expect(sameBytes(identity.body, body))
        }
    }

    /// What a compressing origin (nginx `gzip on; gzip_vary on`) sends: the body gzipped for callers that
    /// accept gzip, identity for the others, and `Vary: Accept-Encoding` on both.
    static func respondLikeACompressingOrigin(_ harness: FetchTestHarness, path: String, body: [UInt8]) {
        harness.origin.respond(to: path) { request in
            let gzip = AcceptEncoding(request.headers).acceptsGzip
            var response = StubOriginResponse.ok(
                bytes: gzip ? StubOriginGzip.encode(body) : body, contentType: "application/json"
            ).header("Cache-Control", "max-age=60").header("Vary", "Accept-Encoding")
            if gzip { response = response.header("Content-Encoding", "gzip") }
            return response
        }
    }

    @Test func variantsOfAcceptEncodingAreAnsweredFromMemoryForBothEncodings() async throws {
        try await withFetchHarness { harness in
            let body = CacheCoreFixtures.compressibleBody(length: 30_000)
            Self.respondLikeACompressingOrigin(harness, path: "/v", body: body)
            let identityMiss = try harness.fetch("/v")
            let gzipMiss = try harness.fetch("/v", headers: [("Accept-Encoding", "gzip, br")])
            #expect(identityMiss.header("X-Cache") == "MISS")
            #expect(gzipMiss.header("X-Cache") == "MISS")
            #expect(await harness.settle())
            // Larder asks the origin in its two classes, whatever the callers' spelling.
            let asked = harness.origin.requests(for: "/v").map { $0.headers["Accept-Encoding"] }
            #expect(asked == ["identity", "gzip"])

            // The first hit of each variant reads it from the store and keeps it in memory.
            let identityHit = try harness.fetch("/v")
            let gzipHit = try harness.fetch("/v", headers: [("Accept-Encoding", "gzip")])
            #expect(identityHit.header("X-Cache") == "HIT")
            #expect(gzipHit.header("X-Cache") == "HIT")
            let keys = [identityHit, gzipHit].compactMap { $0.header("X-Cache-Key") }
            #expect(Set(keys).count == 2, "the two variants are two stored entries")
            for key in keys { #expect(try harness.store.delete(#require(CacheKey(hex: key)))) }

            let identity = try harness.fetch("/v", headers: [("Accept-Encoding", "br")])
            #expect(identity.header("X-Cache") == "HIT")
            #expect(identity.header("Content-Encoding") == nil)
            #expect(identity.header("X-Cache-Key") == identityHit.header("X-Cache-Key"))
            #expect(sameBytes(identity.body, body))
            let gzip = try harness.fetch("/v", headers: [("Accept-Encoding", "br, gzip, deflate")])
            #expect(gzip.header("X-Cache") == "HIT")
            #expect(gzip.header("Content-Encoding") == "gzip")
            #expect(gzip.header("X-Cache-Key") == gzipHit.header("X-Cache-Key"))
            #expect(try sameBytes(gunzip(gzip.body), body))
            #expect(harness.origin.requestCount(for: "/v") == 2, "one origin fetch per variant, none from memory")
        }
    }

    @Test func aVariantForIdentityCallersIsNotGivenToGzipCallers() async throws {
        try await withFetchHarness { harness in
            let body = CacheCoreFixtures.compressibleBody(length: 30_000)
            Self.respondLikeACompressingOrigin(harness, path: "/w", body: body)
            _ = try harness.fetch("/w")
            #expect(await harness.settle())
            #expect(try harness.fetch("/w").header("X-Cache") == "HIT")
            // Only the identity variant is stored and in memory: a gzip caller's variant is a miss.
            let gzip = try harness.fetch("/w", headers: [("Accept-Encoding", "gzip")])
            #expect(gzip.header("X-Cache") == "MISS")
            #expect(gzip.header("Content-Encoding") == "gzip")
            #expect(harness.origin.requestCount(for: "/w") == 2)
        }
    }
}
