import CacheCore
import Foundation
import HTTPCore
import TestSupport
import Testing

@testable import Storage

/// `SQLiteEntryMemo`: a lookup of an entry decoded before reads its row's body id and first chunk only,
/// and whatever changed the row since (a replacement, an update in place, a soft or hard purge, a delete)
/// is what the next lookup serves.
@Suite struct SQLiteEntryMemoTests {
    static let url = "https://e.example/memo"
    static let key = CacheKey.make(canonicalURL: url)

    private func entry(version: String) -> StoredEntry {
        CacheCoreFixtures.makeEntry(url: Self.url, extraHeaders: [("X-Version", version), ("ETag", "\"\(version)\"")])
    }

    /// Looks the entry up twice, which the doorkeeper requires before the memo keeps it, and checks that
    /// it did: what follows must be seen past a remembered entry.
    private func remembered(in harness: StorageTestHarness) throws -> StoredEntry {
        let first = try #require(try harness.store.entryToServe(for: Self.key))
        _ = try harness.store.entryToServe(for: Self.key)
        let kept = harness.store.entryMemo.entry(for: Self.key, rowID: SQLiteCacheStore.rowID(Self.key))
        #expect(kept?.bodyID == first.bodyID)
        return first
    }

    @Test func aRememberedEntryIsReadByTheNarrowStatementAndServesItsBody() throws {
        let harness = try StorageTestHarness()
        let body = CacheCoreFixtures.compressibleBody(length: 3000, seed: 5)
        let stored = try harness.put(entry(version: "1"), body)
        let first = try remembered(in: harness)
        let second = try #require(try harness.store.entryToServe(for: Self.key))
        try harness.store.database.read { reader in
            #expect(reader.hasPrepared(SQLiteCacheStore.lookUpKnownEntry))
        }
        for found in [first, second] {
            #expect(found.bodyID == stored.bodyID)
            #expect(found.headers == stored.headers)
            #expect(found.url == Self.url)
            #expect(found.crc32 == stored.crc32)
        }
        // The first chunk the narrow statement read is the body's (the stash hands it to the read).
        #expect(try harness.read(second) == body)
    }

    @Test func aReplacedEntryIsReadFromItsNewRow() throws {
        let harness = try StorageTestHarness()
        _ = try harness.put(entry(version: "1"), Array("one".utf8))
        #expect(try remembered(in: harness).headers["X-Version"] == "1")
        let replacement = try harness.put(entry(version: "2"), Array("two, longer".utf8))
        let found = try #require(try harness.store.entryToServe(for: Self.key))
        #expect(found.bodyID == replacement.bodyID)
        #expect(found.headers["X-Version"] == "2")
        #expect(try harness.read(found) == Array("two, longer".utf8))
    }

    /// A revalidation merges the origin's fields into the row and keeps its body: only the generation
    /// tells the remembered entry from the row.
    @Test func anUpdateInPlaceRetiresRememberedEntries() throws {
        let harness = try StorageTestHarness()
        _ = try harness.put(entry(version: "1"), Array("body".utf8))
        var remembered = try remembered(in: harness)
        remembered.headers.replaceOrAdd(name: "X-Version", value: "2")
        remembered.responseTime = remembered.responseTime.addingTimeInterval(60)
        #expect(try harness.store.updateMetadata(remembered))
        let found = try #require(try harness.store.entryToServe(for: Self.key))
        #expect(found.headers["X-Version"] == "2")
        #expect(found.responseTime == remembered.responseTime)
        #expect(found.bodyID == remembered.bodyID)
    }

    @Test func aSoftPurgeRetiresRememberedEntries() throws {
        let harness = try StorageTestHarness()
        _ = try harness.put(entry(version: "1"), Array("body".utf8))
        #expect(try remembered(in: harness).staleSince == nil)
        #expect(try harness.store.purge(.url(Self.url), soft: true) == 1)
        #expect(try harness.store.entryToServe(for: Self.key)?.staleSince != nil)
    }

    @Test func aDeletedOrPurgedEntryIsNotServedFromMemory() throws {
        let harness = try StorageTestHarness()
        _ = try harness.put(entry(version: "1"), Array("body".utf8))
        _ = try remembered(in: harness)
        #expect(try harness.store.delete(Self.key))
        #expect(try harness.store.entryToServe(for: Self.key) == nil)

        _ = try harness.put(entry(version: "2"), Array("body".utf8))
        _ = try remembered(in: harness)
        #expect(try harness.store.purge(.url(Self.url), soft: false) == 1)
        #expect(try harness.store.entryToServe(for: Self.key) == nil)
    }

    /// A lookup whose statement began before an update committed must not keep what it decoded.
    @Test func anEntryDecodedBeforeAnUpdateIsNotKept() {
        let memo = SQLiteEntryMemo()
        let entry = entry(version: "1")
        let before = memo.currentGeneration
        memo.entriesChanged()
        for _ in 0..<2 { memo.keep(entry, rowID: 7, decodedIn: before) }
        #expect(memo.count == 0)
        for _ in 0..<2 { memo.keep(entry, rowID: 7, decodedIn: memo.currentGeneration) }
        #expect(memo.entry(for: Self.key, rowID: 7)?.headers == entry.headers)
        // Another key in the same row (64 bits shared) is not this entry.
        #expect(memo.entry(for: CacheKey.make(canonicalURL: "https://e.example/other"), rowID: 7) == nil)
        memo.entriesChanged()
        #expect(memo.entry(for: Self.key, rowID: 7) == nil)
    }

    @Test func theMemoIsBoundedBySlotsAndBytes() {
        let entry = entry(version: "1")
        let cost = SQLiteEntryMemo.cost(of: entry)
        let memo = SQLiteEntryMemo(slotCount: 3, byteBudget: 3 * cost)
        #expect(memo.slotCount == 4)
        for row in Int64(0)..<12 {
            for _ in 0..<2 { memo.keep(entry, rowID: row, decodedIn: memo.currentGeneration) }
        }
        // Twelve rows into four slots, three entries' worth of bytes: each new one replaced its slot's.
        #expect(memo.count == 3)
        #expect(memo.cost == 3 * cost)
        #expect(memo.entry(for: Self.key, rowID: 8) != nil)
        #expect(memo.entry(for: Self.key, rowID: 4) == nil)
        // An entry larger than the whole budget is never kept.
        var large = entry
        large.headers.add(name: "X-Padding", value: String(repeating: "p", count: 4 * cost))
        let small = SQLiteEntryMemo(slotCount: 8, byteBudget: 2 * cost)
        for _ in 0..<2 { small.keep(large, rowID: 1, decodedIn: small.currentGeneration) }
        #expect(small.count == 0)
        #expect(small.cost == 0)
    }

    /// An entry is kept at its second decode, not its first; entries decoded once each, far more than the
    /// memo holds, leave the ones it keeps in place (without the doorkeeper, each replaced its slot's).
    @Test func entriesDecodedOnceDoNotDisplaceKeptOnes() {
        let entry = entry(version: "1")
        let memo = SQLiteEntryMemo(slotCount: 64)
        memo.keep(entry, rowID: 1, decodedIn: memo.currentGeneration)
        #expect(memo.count == 0)
        memo.keep(entry, rowID: 1, decodedIn: memo.currentGeneration)
        #expect(memo.count == 1)
        for row in Int64(2)..<10_002 { memo.keep(entry, rowID: row, decodedIn: memo.currentGeneration) }
        #expect(memo.count < 8)
        #expect(memo.entry(for: Self.key, rowID: 1) != nil)
    }
}
