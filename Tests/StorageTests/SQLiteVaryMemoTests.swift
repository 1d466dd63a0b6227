import CacheCore
import Foundation
import TestSupport
import Testing

@testable import Storage

/// The memo of `vary` rows answers lookups without a query, and never outlives a change to the table.
@Suite struct SQLiteVaryMemoTests {
    static let url = "https://e.example/v"
    static let primary = CacheKey.make(canonicalURL: url)

    static func varied(_ names: [String] = ["accept"]) -> StoredEntry {
        CacheCoreFixtures.makeEntry(
            url: url, varyNames: names, key: CacheKey.make(canonicalURL: url, varyingHeaders: [("accept", "a")]))
    }

    /// A key is remembered at its second read (the doorkeeper lets no key in at its first), and answered
    /// from memory from then on.
    @Test func aThirdLookupIsAnsweredFromMemory() throws {
        let memo = SQLiteVaryMemo()
        var reads = 0
        for _ in 0..<4 {
            #expect(
                memo.names(for: Self.primary) {
                    reads += 1; return ["accept"]
                } == ["accept"])
        }
        #expect(reads == 2)
        // "No row" is remembered as well: most URLs do not vary.
        let other = CacheKey.make(canonicalURL: "https://e.example/plain")
        for _ in 0..<3 {
            #expect(
                memo.names(for: other) {
                    reads += 1; return nil
                } == nil)
        }
        #expect(reads == 4)
    }

    /// Keys read once each, far more than the memo holds, leave what it remembers in place: without the
    /// doorkeeper each of them replaced a remembered key (and the memo emptied itself when full).
    @Test func keysReadOnceDoNotDisplaceRememberedOnes() {
        let memo = SQLiteVaryMemo(capacity: 64)
        for _ in 0..<2 { _ = memo.names(for: Self.primary) { ["accept"] } }
        #expect(memo.count == 1)
        for index in 0..<10_000 {
            _ = memo.names(for: CacheKey.make(canonicalURL: "https://e.example/once/\(index)")) { nil }
        }
        #expect(memo.count < 16)
        var reads = 0
        #expect(
            memo.names(for: Self.primary) {
                reads += 1; return nil
            } == ["accept"])
        #expect(reads == 0)
    }

    @Test func aReadThatAChangeOvertookIsNotRemembered() {
        let memo = SQLiteVaryMemo()
        // The change commits (and forgets) while the lookup's query runs on its older snapshot.
        let stale = memo.names(for: Self.primary) {
            memo.forget([Self.primary])
            return ["accept"]
        }
        #expect(stale == ["accept"])
        #expect(memo.count == 0)
        var reads = 0
        #expect(
            memo.names(for: Self.primary) {
                reads += 1; return nil
            } == nil)
        #expect(reads == 1)
    }

    @Test func theMemoStaysWithinItsCapacity() {
        let memo = SQLiteVaryMemo(capacity: 100)
        for index in 0..<1_000 {
            _ = memo.names(for: CacheKey.make(canonicalURL: "https://e.example/\(index)")) { nil }
            #expect(memo.count <= 100)
        }
    }

    /// Reads the names twice, which the doorkeeper requires before the memo keeps them, and checks that it
    /// did: the change that follows must be seen past a remembered answer.
    static func expectRemembered(_ names: [String]?, in harness: StorageTestHarness) throws {
        for _ in 0..<2 { #expect(try harness.store.varyNames(forPrimaryKey: primary) == names) }
        #expect(harness.store.varyMemo.count == 1)
    }

    /// With the key filters off: with them, the vary filter answers for a URL that does not vary and the memo
    /// never learns its `nil` (`SQLiteKeyFilterTests.aURLThatVariesIsFoundByItsNamesBeforeAndAfterARebuild`).
    @Test func aURLThatStartsVaryingIsSeenToVary() throws {
        let harness = try StorageTestHarness(filtersKeys: false)
        try harness.put(CacheCoreFixtures.makeEntry(url: Self.url), [1])
        try Self.expectRemembered(nil, in: harness)
        try harness.put(Self.varied(), [2])
        try Self.expectRemembered(["accept"], in: harness)
        try harness.put(Self.varied(["accept", "accept-language"]), [3])
        #expect(try harness.store.varyNames(forPrimaryKey: Self.primary) == ["accept", "accept-language"])
    }

    @Test func aPurgeOfEverythingForgetsEveryName() throws {
        let harness = try StorageTestHarness()
        try harness.put(Self.varied(), [1])
        try Self.expectRemembered(["accept"], in: harness)
        _ = try harness.store.purge(.all, soft: false)
        #expect(try harness.count("SELECT count(*) FROM vary") == 0)
        #expect(try harness.store.varyNames(forPrimaryKey: Self.primary) == nil)
    }

    @Test func aBulkLoadForgetsTheNamesItReplaces() throws {
        let harness = try StorageTestHarness()
        try harness.put(Self.varied(), [1])
        try Self.expectRemembered(["accept"], in: harness)
        try harness.store.bulkLoad([(CacheCoreFixtures.makeEntry(url: Self.url), [2])])
        #expect(try harness.store.varyNames(forPrimaryKey: Self.primary) == nil)
    }
}
