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

    @Test func aSecondLookupIsAnsweredFromMemory() throws {
        let memo = SQLiteVaryMemo()
        var reads = 0
        for _ in 0..<3 {
            #expect(
                memo.names(for: Self.primary) {
                    reads += 1; return ["accept"]
                } == ["accept"])
        }
        #expect(reads == 1)
        // "No row" is remembered as well: most URLs do not vary.
        let other = CacheKey.make(canonicalURL: "https://e.example/plain")
        for _ in 0..<2 {
            #expect(
                memo.names(for: other) {
                    reads += 1; return nil
                } == nil)
        }
        #expect(reads == 2)
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

    @Test func aURLThatStartsVaryingIsSeenToVary() throws {
        let harness = try StorageTestHarness()
        try harness.put(CacheCoreFixtures.makeEntry(url: Self.url), [1])
        #expect(try harness.store.varyNames(forPrimaryKey: Self.primary) == nil)
        try harness.put(Self.varied(), [2])
        #expect(try harness.store.varyNames(forPrimaryKey: Self.primary) == ["accept"])
        try harness.put(Self.varied(["accept", "accept-language"]), [3])
        #expect(try harness.store.varyNames(forPrimaryKey: Self.primary) == ["accept", "accept-language"])
    }

    @Test func aPurgeOfEverythingForgetsEveryName() throws {
        let harness = try StorageTestHarness()
        try harness.put(Self.varied(), [1])
        #expect(try harness.store.varyNames(forPrimaryKey: Self.primary) == ["accept"])
        _ = try harness.store.purge(.all, soft: false)
        #expect(try harness.count("SELECT count(*) FROM vary") == 0)
        #expect(try harness.store.varyNames(forPrimaryKey: Self.primary) == nil)
    }

    @Test func aBulkLoadForgetsTheNamesItReplaces() throws {
        let harness = try StorageTestHarness()
        try harness.put(Self.varied(), [1])
        #expect(try harness.store.varyNames(forPrimaryKey: Self.primary) == ["accept"])
        try harness.store.bulkLoad([(CacheCoreFixtures.makeEntry(url: Self.url), [2])])
        #expect(try harness.store.varyNames(forPrimaryKey: Self.primary) == nil)
    }
}
