import CacheCore
import Foundation
import TestSupport
import Testing

@testable import Storage

/// The store's key filter (`StoredKeyFilter`): built from the file when the store opens, kept up to date by
/// every commit, and a lookup of a key never stored answered without a statement.
@Suite struct SQLiteKeyFilterTests {
    static let uniformURL = "https://k.example/plain"
    static let varyingURL = "https://k.example/varies"
    static let variant = CacheKey.make(canonicalURL: varyingURL, varyingHeaders: [("accept", "a")])

    /// Waits for the build the store scheduled when it opened.
    private func built(_ store: SQLiteCacheStore) -> Bool {
        store.keyFilterBuilds.sync {}
        return store.keyFilter.figures != nil
    }

    @Test func aReopenedStoreKnowsEveryKeyItHolds() throws {
        let directory = StorageTestDirectory()
        let path = directory.file()
        do {
            let store = try SQLiteCacheStore(path: path)
            let harness = StoreWriter(store)
            try harness.put(CacheCoreFixtures.makeEntry(url: Self.uniformURL), [1, 2, 3])
            try harness.put(
                CacheCoreFixtures.makeEntry(url: Self.varyingURL, varyNames: ["accept"], key: Self.variant), [4, 5])
        }
        let store = try SQLiteCacheStore(path: path)
        #expect(built(store))
        // The uniform entry's key and the varying URL's primary key came from the scan.
        #expect(store.mayHold(primaryKey: CacheKey.make(canonicalURL: Self.uniformURL)))
        #expect(store.mayHold(primaryKey: CacheKey.make(canonicalURL: Self.varyingURL)))
        // Only the varying URL may have names.
        #expect(store.mayVary(primaryKey: CacheKey.make(canonicalURL: Self.varyingURL)))
        #expect(!store.mayVary(primaryKey: CacheKey.make(canonicalURL: Self.uniformURL)))
        guard case .uniform(let entry?) = try store.lookUpToServe(primaryKey: .make(canonicalURL: Self.uniformURL))
        else {
            Issue.record("the stored entry was not found")
            return
        }
        #expect(entry.url == Self.uniformURL)
        guard case .varies(let names) = try store.lookUpToServe(primaryKey: .make(canonicalURL: Self.varyingURL)) else {
            Issue.record("the varying URL's names were not found")
            return
        }
        #expect(names == ["accept"])
    }

    @Test func aKeyNeverStoredIsAMissWithoutAStatement() throws {
        let harness = try StorageTestHarness()
        #expect(built(harness.store))
        let absent = CacheKey.make(canonicalURL: "https://k.example/never")
        #expect(!harness.store.mayHold(primaryKey: absent))
        guard case .uniform(nil) = try harness.store.lookUpToServe(primaryKey: absent) else {
            Issue.record("a key never stored was found")
            return
        }
        // No reader prepared a lookup, and the Vary memo did not learn the key.
        try harness.store.database.read { reader in
            #expect(!reader.hasPrepared(SQLiteCacheStore.lookUpPrimary))
            #expect(!reader.hasPrepared(SQLiteCacheStore.lookUpEntry))
        }
        #expect(harness.store.varyMemo.count == 0)
    }

    @Test func aCommittedKeyIsHeldAtOnce() throws {
        let harness = try StorageTestHarness()
        #expect(built(harness.store))
        let stored = try harness.put(CacheCoreFixtures.makeEntry(url: Self.uniformURL), [9, 9])
        #expect(harness.store.mayHold(primaryKey: stored.primaryKey))
        #expect(try harness.store.entryToServe(for: stored.key)?.bodyID == stored.bodyID)
        guard case .uniform(let found?) = try harness.store.lookUpToServe(primaryKey: stored.primaryKey) else {
            Issue.record("a committed entry was a miss")
            return
        }
        #expect(found.bodyID == stored.bodyID)
        // A varying entry: its URL's primary key, not only its own.
        _ = try harness.put(
            CacheCoreFixtures.makeEntry(url: Self.varyingURL, varyNames: ["accept"], key: Self.variant), [1])
        #expect(harness.store.mayHold(primaryKey: CacheKey.make(canonicalURL: Self.varyingURL)))
        // And its own row id, which the next commit under that key looks up before its insert.
        #expect(harness.store.mayHold(rowOf: Self.variant))
    }

    /// A commit whose row id the filter rules out inserts without deleting first; a row under that id which
    /// the filter cannot know of (written into the file behind the store's back since its last build) is
    /// still replaced, its body and its count with it, not left beside or failing the commit.
    @Test func aRowUnderAnIDTheFilterDoesNotKnowIsReplaced() throws {
        let harness = try StorageTestHarness()
        #expect(built(harness.store))
        let old = try harness.put(CacheCoreFixtures.makeEntry(url: "https://k.example/old"), [1, 2, 3])
        let new = CacheCoreFixtures.makeEntry(url: "https://k.example/new")
        #expect(!harness.store.mayHold(rowOf: new.key))
        try harness.sql(
            "UPDATE entry SET id = ? WHERE id = ?",
            [.integer(SQLiteCacheStore.rowID(new.key)), .integer(SQLiteCacheStore.rowID(old.key))])
        let stored = try harness.put(new, [4, 5])
        #expect(try harness.read(stored) == [4, 5])
        #expect(try harness.store.entry(for: new.key)?.url == new.url)
        #expect(try harness.count("SELECT count(*) FROM entry") == 1)
        #expect(try harness.count("SELECT entry_count FROM stats") == 1)
        #expect(try harness.count("SELECT count(*) FROM chunk") == 1)
        #expect(harness.store.mayHold(rowOf: new.key))
    }

    /// A commit between the start of a build and its snapshot is in the new table whether or not the
    /// snapshot saw it; a rebuild drops the keys deleted since the last.
    @Test func aRebuildKeepsCommittedKeysAndDropsDeletedOnes() throws {
        let harness = try StorageTestHarness()
        #expect(built(harness.store))
        let kept = try harness.put(CacheCoreFixtures.makeEntry(url: "https://k.example/kept"), [1])
        let gone = try harness.put(CacheCoreFixtures.makeEntry(url: "https://k.example/gone"), [2])
        #expect(try harness.store.delete(gone.key))
        #expect(harness.store.mayHold(primaryKey: gone.primaryKey))  // until the next build
        #expect(harness.store.keyFilter.beginBuild())
        let during = try harness.put(CacheCoreFixtures.makeEntry(url: "https://k.example/during"), [3])
        harness.store.keyFilter.finishBuild(scanned: [])  // a snapshot that saw nothing
        #expect(harness.store.mayHold(primaryKey: during.primaryKey))
        harness.store.buildKeyFilter()  // a real scan
        #expect(harness.store.mayHold(primaryKey: kept.primaryKey))
        #expect(harness.store.mayHold(primaryKey: during.primaryKey))
        #expect(!harness.store.mayHold(primaryKey: gone.primaryKey))
    }

    /// A URL the vary filter rules out is read under its primary key alone: no statement looks for its names,
    /// and the Vary memo does not learn it.
    @Test func aURLThatDoesNotVaryIsReadWithoutLookingForNames() throws {
        let harness = try StorageTestHarness()
        #expect(built(harness.store))
        let stored = try harness.put(CacheCoreFixtures.makeEntry(url: Self.uniformURL), [7, 7])
        #expect(!harness.store.mayVary(primaryKey: stored.primaryKey))
        guard case .uniform(let found?) = try harness.store.lookUpToServe(primaryKey: stored.primaryKey) else {
            Issue.record("a committed entry was a miss")
            return
        }
        #expect(found.bodyID == stored.bodyID)
        #expect(try harness.store.varyNames(forPrimaryKey: stored.primaryKey) == nil)
        try harness.store.database.read { reader in
            #expect(!reader.hasPrepared(SQLiteCacheStore.lookUpPrimary))
            #expect(!reader.hasPrepared(SQLiteCacheStore.lookUpVaryNames))
        }
        #expect(harness.store.varyMemo.count == 0)
    }

    /// A URL whose `vary` row is committed after a build, or while one scans, is in the vary filter at once and
    /// after the next build; one whose row is gone (its entry replaced by one that does not vary) leaves the
    /// filter at the next build.
    @Test func aURLThatVariesIsFoundByItsNamesBeforeAndAfterARebuild() throws {
        let harness = try StorageTestHarness()
        #expect(built(harness.store))
        let primary = CacheKey.make(canonicalURL: Self.varyingURL)
        _ = try harness.put(
            CacheCoreFixtures.makeEntry(url: Self.varyingURL, varyNames: ["accept"], key: Self.variant), [1])
        #expect(harness.store.mayVary(primaryKey: primary))
        guard case .varies(let names) = try harness.store.lookUpToServe(primaryKey: primary) else {
            Issue.record("the names of a URL committed after the build were not found")
            return
        }
        #expect(names == ["accept"])

        let duringURL = "https://k.example/varies-during"
        let duringPrimary = CacheKey.make(canonicalURL: duringURL)
        #expect(harness.store.keyFilter.beginBuild())
        #expect(harness.store.varyFilter.beginBuild())
        _ = try harness.put(
            CacheCoreFixtures.makeEntry(
                url: duringURL, varyNames: ["accept"],
                key: CacheKey.make(canonicalURL: duringURL, varyingHeaders: [("accept", "a")])), [2])
        // Snapshots that saw what was committed before the build began, not the commit during it.
        harness.store.keyFilter.finishBuild(scanned: [Self.variant.leadingWord, primary.leadingWord])
        harness.store.varyFilter.finishBuild(scanned: [primary.leadingWord])
        #expect(harness.store.mayVary(primaryKey: duringPrimary))
        #expect(try harness.store.varyNames(forPrimaryKey: duringPrimary) == ["accept"])

        // The first URL stops varying: its names are deleted with the new entry's commit.
        _ = try harness.put(CacheCoreFixtures.makeEntry(url: Self.varyingURL), [3])
        harness.store.buildKeyFilter()
        #expect(harness.store.mayVary(primaryKey: duringPrimary))
        #expect(!harness.store.mayVary(primaryKey: primary))
        guard case .uniform(let entry?) = try harness.store.lookUpToServe(primaryKey: primary) else {
            Issue.record("the URL's entry that no longer varies was not found")
            return
        }
        #expect(entry.varyNames.isEmpty)
    }

    /// A URL's second variant, with the names its first stored, leaves the `vary` row as it is and the Vary
    /// memo with what it knew; a row gone behind the filter's back (which still says the URL may vary) is
    /// written again, and other names replace the old ones.
    @Test func aSecondVariantKeepsItsURLsNamesAndAMissingRowIsWrittenAgain() throws {
        let harness = try StorageTestHarness()
        #expect(built(harness.store))
        let primary = CacheKey.make(canonicalURL: Self.varyingURL)
        func variant(_ value: String, names: [String] = ["accept"]) -> StoredEntry {
            CacheCoreFixtures.makeEntry(
                url: Self.varyingURL, varyNames: names,
                key: CacheKey.make(canonicalURL: Self.varyingURL, varyingHeaders: names.map { ($0, value) }))
        }
        func storedNames() throws -> String? {
            try harness.store.database.read {
                try $0.queryFirst("SELECT names FROM vary WHERE primary_key = ?", [.blob(primary.bytes)]) {
                    $0.text(0)
                } ?? nil
            }
        }
        try harness.put(variant("a"), [1])
        // Two lookups: the memo's doorkeeper admits a key at its second read.
        for _ in 0..<2 { _ = try harness.store.lookUpToServe(primaryKey: primary) }
        #expect(harness.store.varyMemo.count == 1)

        try harness.put(variant("b"), [2])
        #expect(harness.store.varyMemo.count == 1)
        #expect(try storedNames() == "accept")

        try harness.sql("DELETE FROM vary")
        #expect(harness.store.mayVary(primaryKey: primary))
        try harness.put(variant("c"), [3])
        #expect(try storedNames() == "accept")
        #expect(harness.store.varyMemo.count == 0)

        try harness.put(variant("d", names: ["accept", "accept-language"]), [4])
        #expect(try storedNames() == "accept,accept-language")
    }

    @Test func withTheFilterOffEveryKeyMayBeHeld() throws {
        let harness = try StorageTestHarness(filtersKeys: false)
        harness.store.keyFilterBuilds.sync {}
        #expect(harness.store.keyFilter.figures == nil)
        #expect(harness.store.mayHold(primaryKey: CacheKey.make(canonicalURL: "https://k.example/never")))
        #expect(harness.store.mayVary(primaryKey: CacheKey.make(canonicalURL: "https://k.example/never")))
    }
}

/// Stores bodies in a store opened by the test itself (`StorageTestHarness.put` for another path).
private struct StoreWriter {
    let store: SQLiteCacheStore
    init(_ store: SQLiteCacheStore) { self.store = store }

    @discardableResult
    func put(_ entry: StoredEntry, _ body: [UInt8]) throws -> StoredEntry {
        let writer = try store.beginWrite(hints: CacheBodyHints(headers: entry.headers))
        try writer.append(body)
        return try writer.commit(entry)
    }
}
