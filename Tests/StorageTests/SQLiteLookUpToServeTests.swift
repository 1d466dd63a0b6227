import CacheCore
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Storage

/// `lookUpToServe(primaryKey:)`: for a URL the Vary memo does not know, the `vary` names and the entry
/// under the primary key come from one statement (`lookUpPrimary`), so from one read transaction and
/// one snapshot; once the memo knows the URL, only the entry is read. The key filter is off here: these
/// tests watch the statements, which it would skip for keys never stored (`SQLiteKeyFilterTests`).
@Suite struct SQLiteLookUpToServeTests {
    static let url = "https://e.example/page"
    static let primary = CacheKey.make(canonicalURL: url)

    /// The entry of `entry(for:)` and the one served, compared on what identifies a stored version.
    private func expectUniform(_ lookup: PrimaryLookup, _ stored: StoredEntry?) {
        guard case .uniform(let found) = lookup else {
            Issue.record("expected the entry under the primary key, got \(lookup)")
            return
        }
        #expect(found?.key == stored?.key)
        #expect(found?.bodyID == stored?.bodyID)
        #expect(found?.url == stored?.url)
    }

    @Test func aURLTheMemoDoesNotKnowIsAnsweredByOneStatement() throws {
        let harness = try StorageTestHarness(filtersKeys: false)
        let body = CacheCoreFixtures.randomBody(length: 700, seed: 3)
        let stored = try harness.put(CacheCoreFixtures.makeEntry(url: Self.url), body)
        expectUniform(try harness.store.lookUpToServe(primaryKey: Self.primary), stored)
        // One reader ran the lookup (the tests run it on this thread alone): the combined statement, and
        // neither the names' nor the keyed entry's own.
        try harness.store.database.read { reader in
            #expect(reader.hasPrepared(SQLiteCacheStore.lookUpPrimary))
            #expect(!reader.hasPrepared(SQLiteCacheStore.lookUpVaryNames))
            #expect(!reader.hasPrepared(SQLiteCacheStore.lookUpEntry))
        }
        // At its second lookup (the memos keep a key at its second miss, `MemoDoorkeeper`) the memo keeps
        // that the URL does not vary, and the entry memo the entry it decoded; from then on, the keyed
        // lookup of a remembered entry alone (`SQLiteEntryMemoTests`).
        #expect(harness.store.varyMemo.count == 0)
        expectUniform(try harness.store.lookUpToServe(primaryKey: Self.primary), stored)
        #expect(harness.store.varyMemo.count == 1)
        #expect(harness.store.entryMemo.count == 1)
        expectUniform(try harness.store.lookUpToServe(primaryKey: Self.primary), stored)
        try harness.store.database.read { reader in
            #expect(reader.hasPrepared(SQLiteCacheStore.lookUpKnownEntry))
            #expect(!reader.hasPrepared(SQLiteCacheStore.lookUpEntry))
            #expect(!reader.hasPrepared(SQLiteCacheStore.lookUpVaryNames))
        }
    }

    @Test func nothingStoredIsAMissUnderThePrimaryKey() throws {
        let harness = try StorageTestHarness(filtersKeys: false)
        _ = try harness.put(CacheCoreFixtures.makeEntry(url: "https://e.example/other"), [1, 2, 3])
        expectUniform(try harness.store.lookUpToServe(primaryKey: Self.primary), nil)
        // Remembered as "does not vary" at the second lookup, and still a miss from memory.
        expectUniform(try harness.store.lookUpToServe(primaryKey: Self.primary), nil)
        #expect(harness.store.varyMemo.count == 1)
        expectUniform(try harness.store.lookUpToServe(primaryKey: Self.primary), nil)
    }

    @Test func aVaryingURLAnswersItsNamesAndNoEntry() throws {
        let harness = try StorageTestHarness(filtersKeys: false)
        let variant = CacheKey.make(canonicalURL: Self.url, varyingHeaders: [("accept", "a")])
        let stored = try harness.put(
            CacheCoreFixtures.makeEntry(url: Self.url, varyNames: ["accept"], key: variant), [4, 5, 6])
        for _ in 0..<3 {  // from the table twice (the memo keeps it at the second), then from memory
            guard case .varies(let names) = try harness.store.lookUpToServe(primaryKey: Self.primary) else {
                Issue.record("a varying URL answered an entry")
                return
            }
            #expect(names == ["accept"])
        }
        #expect(try harness.store.entryToServe(for: variant)?.bodyID == stored.bodyID)
    }

    /// The names win over an entry still under the primary key (stored before the URL began to vary):
    /// that entry answers no request any more.
    @Test func namesWinOverAnEntryUnderThePrimaryKey() throws {
        let harness = try StorageTestHarness(filtersKeys: false)
        _ = try harness.put(CacheCoreFixtures.makeEntry(url: Self.url), [7, 8, 9])
        try harness.sql(
            "INSERT INTO vary (primary_key, names) VALUES (?, ?)",
            [.blob(Self.primary.bytes), .text("accept,accept-language")])
        guard case .varies(let names) = try harness.store.lookUpToServe(primaryKey: Self.primary) else {
            Issue.record("the entry under the primary key was served though the URL varies")
            return
        }
        #expect(names == ["accept", "accept-language"])
    }

    @Test func aPurgedEntryWaitingForTheReclaimerIsLeftOut() throws {
        let harness = try StorageTestHarness(filtersKeys: false)
        _ = try harness.put(CacheCoreFixtures.makeEntry(url: Self.url), [1, 2])
        let hold = SQLiteCacheStoreReclaimTests.ReclaimerHold(harness.store)
        defer { hold.release() }
        #expect(try harness.store.purge(CachePurgeScope(url: Self.url)) == 1)
        let mayExist = harness.store.purgedRowsMayExist.load(ordering: .acquiring)
        #expect(mayExist)
        #expect(try harness.count("SELECT count(*) FROM entry") == 1)
        expectUniform(try harness.store.lookUpToServe(primaryKey: Self.primary), nil)
    }

    /// The statement's chunk columns are the first chunk's: the body read after it uses that chunk, and
    /// finds the bytes although the chunk is deleted in between.
    @Test func theBodyReadAfterTheLookupUsesTheChunkItRead() throws {
        let harness = try StorageTestHarness(filtersKeys: false)
        // Other bodies first, so that body and chunk ids are not all 1.
        for index in 0..<3 {
            _ = try harness.put(CacheCoreFixtures.makeEntry(url: "https://e.example/\(index)"), [UInt8(index)])
        }
        let body = CacheCoreFixtures.randomBody(length: 2 * StorageTestHarness.chunkSize + 10, seed: 9)
        _ = try harness.put(CacheCoreFixtures.makeEntry(url: Self.url), body)
        guard case .uniform(let found?) = try harness.store.lookUpToServe(primaryKey: Self.primary) else {
            Issue.record("the stored entry was not found")
            return
        }
        try harness.sql("DELETE FROM chunk WHERE id = ?", [.integer(found.bodyID << StorageSchema.chunkIDShift)])
        #expect(try harness.read(found) == body)
    }
}
