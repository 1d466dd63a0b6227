import CacheCore
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Storage

/// Tags, purges by URL and tag, soft purges, dry runs and purges racing a write, on a real SQLite file.
@Suite struct SQLiteCacheStorePurgeTests {
    /// An entry of `url` with tags (and, for a variant, the key of its `Accept-Language`).
    static func entry(_ url: String, tags: [String] = [], language: String? = nil) -> StoredEntry {
        let key = language.map { CacheKey.make(canonicalURL: url, varyingHeaders: [("accept-language", $0)]) }
        var entry = CacheCoreFixtures.makeEntry(
            url: url, varyNames: language == nil ? [] : ["accept-language"], key: key)
        entry.tags = tags
        return entry
    }

    /// A store of 40 entries: hosts a and b, tags by residue, three variants of one URL.
    static func populated() throws -> StorageTestHarness {
        let harness = try StorageTestHarness()
        for index in 0..<36 {
            let host = index % 2 == 0 ? "a.example" : "b.example"
            let tags = ["all", "mod3-\(index % 3)"] + (index % 4 == 0 ? ["product-\(index)"] : [])
            try harness.put(entry("https://\(host)/item/\(index)", tags: tags), Array("body \(index)".utf8))
        }
        for language in ["en", "fr", "de"] {
            try harness.put(entry("https://a.example/page", tags: ["page"], language: language), Array(language.utf8))
        }
        try harness.put(entry("https://a.example/page?other", tags: ["page"]), [1])
        return harness
    }

    @Test func tagsAreStoredReadBackAndListed() throws {
        let harness = try Self.populated()
        let found = try #require(try harness.store.entry(for: CacheKey.make(canonicalURL: "https://a.example/item/4")))
        #expect(found.tags == ["all", "mod3-1", "product-4"])
        var query = CacheEntryQuery(limit: 100)
        query.tags = ["product-4", "product-8"]
        #expect(
            Set(try harness.store.list(query).entries.map(\.url)) == [
                "https://a.example/item/4", "https://a.example/item/8",
            ])
        query.tags = ["nothing"]
        #expect(try harness.store.list(query).entries.isEmpty)
    }

    @Test func anUntaggedEntryWritesNoTagRowAndATaggedOneLeavesNoneBehind() throws {
        let harness = try StorageTestHarness()
        try harness.put(Self.entry("https://x.example/plain"), [1, 2])
        #expect(try harness.count("SELECT count(*) FROM entry_tag") == 0)
        #expect(try harness.count("SELECT count(*) FROM entry WHERE tags IS NULL") == 1)
        try harness.put(Self.entry("https://x.example/tagged", tags: ["t1", "t2", "quote\"and\\slash"]), [3])
        #expect(try harness.count("SELECT count(*) FROM entry_tag") == 3)
        // Replaced by an untagged version, then deleted: the trigger removes the tag rows with the entry.
        try harness.put(Self.entry("https://x.example/tagged"), [4])
        #expect(try harness.count("SELECT count(*) FROM entry_tag") == 0)
        try harness.put(Self.entry("https://x.example/again", tags: ["t1"]), [5])
        #expect(try harness.store.delete(CacheKey.make(canonicalURL: "https://x.example/again")))
        #expect(try harness.count("SELECT count(*) FROM entry_tag") == 0)
    }

    @Test func aTagWithQuotesAndBackslashesRoundTrips() throws {
        let harness = try StorageTestHarness()
        let tags = ["quote\"and\\slash", "ünïcode", "plain"]
        try harness.put(Self.entry("https://x.example/t", tags: tags), [1])
        #expect(try harness.store.entry(for: CacheKey.make(canonicalURL: "https://x.example/t"))?.tags == tags)
        #expect(try harness.store.purge(.tags(["quote\"and\\slash"])) == 1)
        try harness.store.reclaimPurged()
        #expect(try harness.count("SELECT count(*) FROM entry_tag") == 0)
    }

    static let scopes: [CachePurgeScope] = [
        .tags(["mod3-0"]), .tags(["mod3-0", "mod3-1"]), .tags(["product-8"]), .tags(["none"]),
        CachePurgeScope(host: "B.EXAMPLE", tags: ["mod3-0"]),
        CachePurgeScope(urlPrefix: "https://a.example/item/1", tags: ["all"]), .url("https://a.example/page"),
        .url("https://a.example/nothing"), CachePurgeScope(url: "https://a.example/page", tags: ["nope"]), .all,
    ]

    @Test(arguments: scopes)
    func purgeDeletesExactlyWhatTheScopeSelects(scope: CachePurgeScope) throws {
        let harness = try Self.populated()
        let before = try harness.store.list(CacheEntryQuery(limit: 1000)).entries
        let doomed = before.filter(scope.matches)
        let preview = try harness.store.previewPurge(scope, soft: false, limit: 5)
        #expect(preview.count == doomed.count)
        #expect(preview.keys == Array(doomed.prefix(5).map(\.key)))
        // The dry run changed nothing.
        #expect(try harness.store.list(CacheEntryQuery(limit: 1000)).entries.count == before.count)
        #expect(try harness.store.purge(scope) == doomed.count)
        let after = try harness.store.list(CacheEntryQuery(limit: 1000)).entries
        #expect(Set(after.map(\.key)) == Set(before.map(\.key)).subtracting(doomed.map(\.key)))
        try harness.store.reclaimPurged()
        #expect(try harness.store.list(CacheEntryQuery(limit: 1000)).entries.map(\.key) == after.map(\.key))
        #expect(try harness.count("SELECT count(*) FROM entry_tag") == after.reduce(0) { $0 + $1.tags.count })
    }

    @Test func purgeByURLRemovesEveryVaryVariantAndTheirVaryNames() throws {
        let harness = try Self.populated()
        let primary = CacheKey.make(canonicalURL: "https://a.example/page")
        #expect(try harness.store.varyNames(forPrimaryKey: primary) == ["accept-language"])
        #expect(try harness.store.purge(.url("https://a.example/page")) == 3)
        #expect(try harness.store.varyNames(forPrimaryKey: primary) == nil)
        #expect(try harness.store.entry(for: CacheKey.make(canonicalURL: "https://a.example/page?other")) != nil)
    }

    /// 2 500 tagged entries, loaded as `bulkLoad` loads them (counted in `stats` as the commit path counts).
    private static func bulkTagged(_ harness: StorageTestHarness) throws {
        try harness.store.bulkLoad(
            (0..<2_500).lazy.map { index in
                var entry = CacheCoreFixtures.makeEntry(url: "https://bulk.example/\(index)")
                entry.tags = ["bulk"]
                return (entry, [UInt8]())
            })
    }

    @Test func aPurgeOfManyEntriesRunsInTransactionsOfAtMostTheBatchSize() throws {
        let harness = try StorageTestHarness()
        try Self.bulkTagged(harness)
        let before = harness.store.purgeTransactionCount
        #expect(try harness.store.purge(.tags(["bulk"])) == 2_500)
        #expect(harness.store.purgeTransactionCount - before >= 3)
        #expect(harness.store.purgeLargestTransactionRows <= SQLiteCacheStore.purgeBatchSize)
        #expect(harness.store.purgeLargestTransactionRows >= 100)
        try harness.store.reclaimPurged()
        #expect(harness.store.reclaimLargestTransactionRows <= SQLiteCacheStore.purgeBatchSize)
        #expect(try harness.count("SELECT count(*) FROM entry") == 0)
        #expect(try harness.count("SELECT count(*) FROM entry_tag") == 0)
    }

    /// A soft purge keeps the rows it marks: each batch goes on after the last one it marked, so every
    /// row is marked once, in several transactions, whatever the number of batches.
    @Test(arguments: [CachePurgeScope.tags(["bulk"]), .all, .host("bulk.example")])
    func aSoftPurgeOfManyEntriesMarksEachOnceInBatches(scope: CachePurgeScope) throws {
        let harness = try StorageTestHarness()
        try Self.bulkTagged(harness)
        let before = harness.store.purgeTransactionCount
        #expect(try harness.store.purge(scope, soft: true) == 2_500)
        #expect(harness.store.purgeTransactionCount - before >= 3)
        #expect(harness.store.purgeLargestTransactionRows <= SQLiteCacheStore.purgeBatchSize)
        #expect(try harness.count("SELECT count(*) FROM entry WHERE stale_since IS NOT NULL") == 2_500)
        // Marked already: a second soft purge finds nothing new.
        #expect(try harness.store.purge(scope, soft: true) == 0)
    }

    @Test func aTagPurgeReadsTheTagIndexNotTheTable() throws {
        let harness = try StorageTestHarness()
        let condition = SQLiteCacheStore.purgeCondition(.tags(["x"]))
        let plan = try harness.store.database.read { connection in
            try connection.query(
                "EXPLAIN QUERY PLAN SELECT id FROM entry WHERE \(condition.sql) AND seq <= ? LIMIT 1000",
                condition.values + [.integer(9)]
            ) { $0.text(3) ?? "" }
        }
        #expect(plan.contains { $0.contains("entry_tag") && $0.contains("PRIMARY KEY") }, "\(plan)")
        #expect(!plan.contains { $0.hasPrefix("SCAN entry") }, "\(plan)")
    }

    @Test func softPurgeMarksStaleKeepsTheEntryAndARevalidationClearsIt() throws {
        let harness = try Self.populated()
        #expect(try harness.store.purge(.tags(["product-4"]), soft: true) == 1)
        // Already stale: a second soft purge marks nothing, and its dry run counts nothing.
        #expect(try harness.store.previewPurge(.tags(["product-4"]), soft: true, limit: 5).count == 0)
        #expect(try harness.store.purge(.tags(["product-4"]), soft: true) == 0)
        let key = CacheKey.make(canonicalURL: "https://a.example/item/4")
        let stale = try #require(try harness.store.entry(for: key))
        #expect(stale.staleSince == CacheCoreFixtures.epoch)
        #expect(try harness.read(stale) == Array("body 4".utf8))
        // A revalidation sent before the purge does not clear it; one sent after does.
        var early = stale
        early.requestTime = CacheCoreFixtures.epoch.addingTimeInterval(-1)
        #expect(try harness.store.updateMetadata(early))
        #expect(try harness.store.entry(for: key)?.staleSince == CacheCoreFixtures.epoch)
        var late = stale
        late.requestTime = CacheCoreFixtures.epoch.addingTimeInterval(1)
        #expect(try harness.store.updateMetadata(late))
        #expect(try harness.store.entry(for: key)?.staleSince == nil)
    }

    @Test func aWriteThatAPurgeMatchesWhileItRunsIsCommittedStale() throws {
        let harness = try StorageTestHarness()
        let matching = try harness.store.beginWrite(hints: CacheBodyHints())
        let other = try harness.store.beginWrite(hints: CacheBodyHints())
        try matching.append(Array(repeating: 7, count: 10_000))
        try other.append([1, 2, 3])
        #expect(try harness.store.purge(.tags(["product-42"])) == 0)
        let stored = try matching.commit(Self.entry("https://r.example/a", tags: ["product-42", "x"]))
        let untouched = try other.commit(Self.entry("https://r.example/b", tags: ["product-43"]))
        #expect(stored.staleSince == CacheCoreFixtures.epoch)
        #expect(try harness.store.entry(for: stored.key)?.staleSince == CacheCoreFixtures.epoch)
        #expect(untouched.staleSince == nil)
        #expect(try harness.store.entry(for: untouched.key)?.staleSince == nil)
        // A write begun after the purge is stored as usual.
        let later = try harness.put(Self.entry("https://r.example/c", tags: ["product-42"]), [9])
        #expect(later.staleSince == nil)
    }

    /// Commits now get the writer between a long purge's batches (`SQLiteDatabase.yieldTurn`): one that
    /// the purge matches, begun before it, is committed stale in such a turn; one it does not match, fresh.
    @Test func aWriteCommittedBetweenTheBatchesOfALongPurgeFollowsThePurgeLog() throws {
        let harness = try StorageTestHarness()
        // Enough for twenty batches or more, so that the purge is still under way when the commits come.
        try harness.store.bulkLoad(
            (0..<20_000).lazy.map { index in
                var entry = CacheCoreFixtures.makeEntry(url: "https://bulk.example/\(index)")
                entry.tags = ["bulk"]
                return (entry, [UInt8]())
            })
        let matching = try harness.store.beginWrite(hints: CacheBodyHints())
        let other = try harness.store.beginWrite(hints: CacheBodyHints())
        try matching.append([7])
        try other.append([8])
        let before = harness.store.purgeTransactionCount
        let purged = Mutex<Int?>(nil)
        let done = DispatchSemaphore(value: 0)
        let store = harness.store
        Thread {
            // Purged outside the lock: the test reads `purged` while the purge runs.
            let count = try? store.purge(.tags(["bulk"]))
            purged.withLock { $0 = count }
            done.signal()
        }.start()
        // Once the first batch committed, the purge is under way and the next commit lands in a turn.
        let deadline = ContinuousClock.now + .seconds(10)
        while harness.store.purgeTransactionCount == before, ContinuousClock.now < deadline { usleep(100) }
        let stored = try matching.commit(Self.entry("https://bulk.example/late", tags: ["bulk"]))
        let untouched = try other.commit(Self.entry("https://r.example/late", tags: ["other"]))
        let purgeStillRan = purged.withLock { $0 == nil }
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(purged.withLock { $0 } == 20_000)
        #expect(purgeStillRan, "the commits came after the purge ended")
        #expect(stored.staleSince == CacheCoreFixtures.epoch)
        #expect(try harness.store.entry(for: stored.key)?.staleSince == CacheCoreFixtures.epoch)
        #expect(untouched.staleSince == nil)
        #expect(try harness.store.entry(for: untouched.key)?.staleSince == nil)
    }

    @Test(arguments: [
        CachePurgeScope.url("https://r.example/a"), .host("r.example"), .urlPrefix("https://r.example/"), .all,
    ])
    func aWriteRacingAnyPurgeKindItMatchesIsCommittedStale(scope: CachePurgeScope) throws {
        let harness = try StorageTestHarness()
        let writer = try harness.store.beginWrite(hints: CacheBodyHints())
        try writer.append([1])
        try harness.store.purge(scope, soft: true)
        let racing = try writer.commit(Self.entry("https://r.example/a"))
        #expect(racing.staleSince != nil)
        let unrelated = try harness.store.beginWrite(hints: CacheBodyHints())
        try harness.store.purge(.host("elsewhere.example"))
        try unrelated.append([2])
        #expect(try unrelated.commit(Self.entry("https://r.example/z")).staleSince == nil)
    }

    @Test func aWriterOlderThanEveryRememberedPurgeIsCommittedStale() throws {
        let harness = try StorageTestHarness()
        let writer = try harness.store.beginWrite(hints: CacheBodyHints())
        for index in 0...SQLitePurgeLog.capacity { try harness.store.purge(.host("h\(index).example")) }
        try writer.append([1])
        #expect(try writer.commit(Self.entry("https://r.example/a")).staleSince != nil)
    }
}
