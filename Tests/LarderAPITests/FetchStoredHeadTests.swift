import CacheCore
import CachePolicy
import Foundation
import HTTPCore
import Synchronization
import TestSupport
import Testing

@testable import LarderAPI

/// A plain hit from the store (memory tier off) sends a head kept by `StoredHeadMemo`: the same fields the
/// full path writes, rebuilt whenever anything they are made of changes.
@Suite struct FetchStoredHeadTests {
    static let storeOnly = FetchConfiguration(hotBudgetBytes: 0)

    /// The fields two answers must agree on: all but the ones that name the moment or the request.
    static func comparable(_ response: RawHTTPResponse) -> [String] {
        response.headers.filter { !["date", "x-request-id"].contains($0.name.lowercased()) }
            .map { "\($0.name.lowercased()): \($0.value)" }
    }

    /// The answer to a plain request, with the head from memory, against the answer of the full path (a
    /// conditional that does not match sends the request there), for identity, gzip and HEAD callers.
    @Test func aPlainHitSendsTheFieldsTheFullPathWrites() async throws {
        try await withFetchHarness(configuration: Self.storeOnly) { harness in
            let body = CacheCoreFixtures.compressibleBody(length: 10_000)
            harness.origin.respond(
                to: "/p",
                with: .ok(bytes: body, contentType: "text/plain").header("Cache-Control", "max-age=600")
                    .header("ETag", "\"v1\"").header("X-Origin", "kept"))
            _ = try harness.fetch("/p")
            #expect(await harness.settle())
            let heads = harness.service.storedHeads
            for accept in [[], [("Accept-Encoding", "gzip")]] as [[(String, String)]] {
                let first = try harness.fetch("/p", headers: accept)
                // A head is kept for the rest of its `Date` second: the next plain hit in that second copies
                // it. A loaded machine may cross a second between two hits, so a few pairs are allowed.
                var plain = first
                var answeredFromMemory = false
                for _ in 0..<5 where !answeredFromMemory {
                    let before = heads.answeredFromMemory.load(ordering: .relaxed)
                    plain = try harness.fetch("/p", headers: accept)
                    answeredFromMemory = heads.answeredFromMemory.load(ordering: .relaxed) > before
                }
                #expect(answeredFromMemory, "a later head is the kept one")
                let before = heads.answeredFromMemory.load(ordering: .relaxed)
                let full = try harness.fetch("/p", headers: accept + [("If-None-Match", "\"other\"")])
                #expect(heads.answeredFromMemory.load(ordering: .relaxed) == before, "a conditional plans")
                for answer in [first, plain, full] {
                    #expect(answer.status == 200)
                    #expect(answer.header("X-Cache") == "HIT")
                }
                #expect(Self.comparable(plain) == Self.comparable(full))
                #expect(Self.comparable(first) == Self.comparable(full))
                if accept.isEmpty {
                    #expect(plain.body == body)
                    #expect(plain.header("ETag") == "\"v1\"")
                } else {
                    #expect(plain.header("Content-Encoding") == "gzip")
                    #expect(plain.header("ETag") == "W/\"v1\"")
                    #expect(try gunzip(plain.body) == body)
                }
                #expect(plain.header("Content-Length") == String(plain.body.count))
                #expect(plain.header("X-Origin") == "kept")
                #expect(plain.header("Vary") == "Accept-Encoding")
            }
            let head = try harness.fetch("/p", method: "HEAD")
            #expect(head.status == 200)
            #expect(head.body.isEmpty)
            #expect(head.header("Content-Length") == String(body.count))
            #expect(head.header("X-Cache") == "HIT")
        }
    }

    /// The age moving on, and a new response stored under the key, each get a head of their own.
    @Test func theHeadFollowsTheAgeAndTheStoredResponse() async throws {
        try await withFetchHarness(configuration: Self.storeOnly) { harness in
            let version = Mutex(1)
            harness.origin.respond(to: "/c") { _ in
                let number = version.withLock { $0 }
                return StubOriginResponse.ok(
                    bytes: Array(repeating: UInt8(ascii: "a"), count: 100 * number), contentType: "text/plain"
                ).header("Cache-Control", "max-age=60").header("ETag", "\"v\(number)\"")
            }
            _ = try harness.fetch("/c")
            #expect(await harness.settle())
            _ = try harness.fetch("/c")
            let young = try harness.fetch("/c")
            #expect(young.header("Age") == "0")
            harness.clock.advance(by: 7)
            let older = try harness.fetch("/c")
            #expect(older.header("Age") == "7")
            #expect(older.header("Cache-Status")?.contains("ttl=53") == true)
            #expect(older.header("X-Cache") == "HIT")
            // Past max-age the origin answers with a larger body and a new tag; the stored entry is new.
            version.withLock { $0 = 2 }
            harness.clock.advance(by: 60)
            _ = try harness.fetch("/c")
            #expect(await harness.settle())
            let renewed = try harness.fetch("/c")
            #expect(renewed.header("X-Cache") == "HIT")
            #expect(renewed.header("ETag") == "\"v2\"")
            #expect(renewed.header("Content-Length") == "200")
            #expect(renewed.body.count == 200)
        }
    }
}

/// The memo on its own: what it keeps and when it builds again.
@Suite struct StoredHeadMemoTests {
    static func slot(age: Int64 = 0, bodyID: Int64 = 1, gzip: Bool = false) -> StoredHeadMemo.Slot {
        StoredHeadMemo.Slot(
            key: CacheKey.make(canonicalURL: "https://e.example/h"), bodyID: bodyID, gzip: gzip, xCache: .hit,
            age: age, cacheStatus: CacheStatus(cacheName: "Larder", hit: true, ttl: 60), dateSecond: 1_000)
    }

    static let fields = HTTPHeaders([("Content-Type", "text/plain")])

    /// Asks `memo` for heads, each built as "head n" (n counting the builds) and `size` bytes long when given.
    private final class Builds {
        let memo: StoredHeadMemo
        private(set) var count = 0

        init(_ memo: StoredHeadMemo = StoredHeadMemo()) { self.memo = memo }

        func head(_ slot: StoredHeadMemo.Slot, _ fields: HTTPHeaders = StoredHeadMemoTests.fields, size: Int? = nil)
            -> [UInt8]
        {
            memo.head(for: slot, storedHeaders: fields) {
                count += 1
                return size.map { Array(repeating: 0x61, count: $0) } ?? Array("head \(count)".utf8)
            }
        }
    }

    /// Kept at its second build (`MemoDoorkeeper`: a key is not kept at its first miss), then answered from
    /// memory.
    @Test func aHeadIsKeptAtItsSecondBuildForTheSameSlotAndFields() {
        let builds = Builds()
        let first = builds.head(Self.slot())
        let second = builds.head(Self.slot())
        #expect(first != second)
        let again = builds.head(Self.slot())
        #expect(second == again)
        #expect(builds.count == 2)
        #expect(builds.memo.answeredFromMemory.load(ordering: .relaxed) == 1)
    }

    @Test func anyChangedPartIsBuiltAgain() {
        let builds = Builds()
        for _ in 0..<2 { _ = builds.head(Self.slot()) }
        _ = builds.head(Self.slot(age: 1))
        _ = builds.head(Self.slot(age: 1, bodyID: 2))
        _ = builds.head(Self.slot(age: 1, bodyID: 2, gzip: true))
        var otherFields = Self.fields
        otherFields.add(name: "ETag", value: "\"x\"")
        let last = builds.head(Self.slot(age: 1, bodyID: 2, gzip: true), otherFields)
        #expect(builds.count == 6)
        #expect(last == Array("head 6".utf8))
        #expect(builds.memo.answeredFromMemory.load(ordering: .relaxed) == 0)
    }

    @Test func headsAboveTheLimitAndAMemoWithoutSlotsKeepNothing() {
        for (memo, size) in [(StoredHeadMemo(), StoredHeadMemo.maxHeadBytes + 1), (StoredHeadMemo(slotCount: 0), 10)] {
            let builds = Builds(memo)
            for _ in 0..<3 { #expect(builds.head(Self.slot(), size: size).count == size) }
            #expect(builds.count == 3)
        }
    }
}
