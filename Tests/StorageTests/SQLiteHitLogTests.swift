import CacheCore
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Storage

/// Hits are kept in memory and written in bulk (`SQLiteHitLog`); what callers read is exact all along.
@Suite struct SQLiteHitLogTests {
    private static func at(_ seconds: Double) -> Date { CacheCoreFixtures.epoch.addingTimeInterval(seconds) }

    /// A store bounded to three entries of 1 000-byte bodies, holding three, oldest first in `keys`.
    private static func fullStoreOfThree() throws -> (StorageTestHarness, TestClock, [CacheKey]) {
        let clock = TestClock()
        let harness = try StorageTestHarness(maxSize: 3 * 1_400) { clock.now() }
        let keys = try (0..<3).map { index in
            let body = CacheCoreFixtures.randomBody(length: 1000, seed: UInt64(index))
            return try harness.put(CacheCoreFixtures.makeEntry(url: "https://e.example/\(index)"), body).key
        }
        return (harness, clock, keys)
    }

    @Test func hitsStayInMemoryUntilTheLogIsFullThenAreWrittenOffTheCaller() throws {
        let harness = try StorageTestHarness(hitLogCapacity: 3)
        let entries = try (0..<3).map {
            try harness.put(CacheCoreFixtures.makeEntry(url: "https://e.example/\($0)"), [UInt8($0)])
        }
        harness.store.recordHits(entries[0].key, count: 2, at: Self.at(10))
        harness.store.recordHits(entries[1].key, count: 1, at: Self.at(20))
        // The same entry again does not fill the log: it holds entries, not hits.
        harness.store.recordHits(entries[1].key, count: 4, at: Self.at(15))
        harness.store.hitFlushes.sync {}
        #expect(try harness.count("SELECT sum(hit_count) FROM entry_access") == 0)
        #expect(try harness.store.entry(for: entries[1].key)?.hitCount == 5)
        #expect(try harness.store.entry(for: entries[1].key)?.lastAccess == Self.at(20))

        harness.store.recordHits(entries[2].key, count: 1, at: Self.at(30))
        harness.store.hitFlushes.sync {}
        #expect(try harness.count("SELECT sum(hit_count) FROM entry_access") == 8)
        #expect(harness.store.hitLog.count == 0)
        let rows = try harness.store.database.read {
            try $0.query("SELECT hit_count, last_access FROM entry_access ORDER BY hit_count") {
                ($0.int(0), $0.double(1))
            }
        }
        #expect(rows.map(\.0) == [1, 2, 5])
        #expect(rows.map(\.1) == [30, 10, 20].map { Self.at($0).timeIntervalSince1970 })
        // Read back from the rows alone, the figures are the same.
        #expect(try harness.store.entry(for: entries[1].key)?.hitCount == 5)
    }

    @Test func aListingAddsTheHitsNotYetWritten() throws {
        let harness = try StorageTestHarness()
        let stored = try harness.put(CacheCoreFixtures.makeEntry(), [1])
        harness.store.recordHits(stored.key, count: 3, at: Self.at(40))
        let listed = try #require(try harness.store.list(CacheEntryQuery(limit: 10)).entries.first)
        #expect(listed.hitCount == 3)
        #expect(listed.lastAccess == Self.at(40))
        #expect(try harness.count("SELECT count(*) FROM entry_access") == 0)
    }

    @Test func aReplacedOrDeletedEntryDoesNotInheritUnwrittenHits() throws {
        let harness = try StorageTestHarness()
        let first = try harness.put(CacheCoreFixtures.makeEntry(), [1])
        harness.store.recordHits(first.key, count: 9, at: Self.at(5))
        let second = try harness.put(CacheCoreFixtures.makeEntry(), [2])
        #expect(try harness.store.entry(for: second.key)?.hitCount == 0)
        harness.store.recordHits(second.key, count: 2, at: Self.at(6))
        #expect(try harness.store.delete(second.key))
        #expect(harness.store.hitLog.pending(SQLiteCacheStore.rowID(second.key)) == nil)
        try harness.put(CacheCoreFixtures.makeEntry(), [3])
        try harness.store.flushHits()
        #expect(try harness.count("SELECT count(*) FROM entry_access") == 0)
    }

    @Test func evictionSparesACandidateOnlyTheHitLogSawUsedAndWritesNothingForIt() throws {
        let (harness, clock, keys) = try Self.fullStoreOfThree()
        #expect(try harness.store.stats().entryCount == 3)
        // The oldest row was used since it was written; the log alone knows.
        harness.store.recordHits(keys[0], count: 4, at: clock.now())
        let body = CacheCoreFixtures.randomBody(length: 1000, seed: 9)
        let newest = try harness.put(CacheCoreFixtures.makeEntry(url: "https://e.example/new"), body).key
        #expect(try harness.store.entry(for: keys[0])?.hitCount == 4)
        #expect(try harness.store.entry(for: keys[1]) == nil)
        #expect(try harness.store.entry(for: keys[2]) != nil)
        #expect(try harness.store.entry(for: newest) != nil)
        // Sparing it wrote nothing: its hits are still in the log alone.
        #expect(harness.store.hitLog.count == 1)
        #expect(try harness.count("SELECT count(*) FROM entry_access") == 0)
    }

    /// An entry the hand takes although the log holds hits of it (older than the lap spares) takes them
    /// with it: the next entry stored under its key starts without them.
    @Test func anEvictedEntryLeavesNoUnwrittenHitsToTheNextEntryOfItsKey() throws {
        let (harness, clock, keys) = try Self.fullStoreOfThree()
        harness.store.recordHits(keys[0], count: 4, at: clock.now())
        // A lap that spares only what was used after those hits.
        let later = clock.now().timeIntervalSince1970 + 1000
        try harness.sql("UPDATE eviction_hand SET spared_since = ?", [.real(later)])
        let body = CacheCoreFixtures.randomBody(length: 1000, seed: 9)
        try harness.put(CacheCoreFixtures.makeEntry(url: "https://e.example/new"), body)
        #expect(try harness.store.entry(for: keys[0]) == nil)
        #expect(harness.store.hitLog.pending(SQLiteCacheStore.rowID(keys[0])) == nil)
        let again = try harness.put(CacheCoreFixtures.makeEntry(url: "https://e.example/0"), [5])
        #expect(again.key == keys[0])
        #expect(try harness.store.entry(for: keys[0])?.hitCount == 0)
    }

    @Test func aFlushLargerThanOneBatchWritesEveryRow() throws {
        let harness = try StorageTestHarness()
        let count = SQLiteCacheStore.hitBatch + 10
        let entries = (0..<count).map { CacheCoreFixtures.makeEntry(url: "https://e.example/\($0)") }
        try harness.store.bulkLoad(entries.lazy.map { ($0, [UInt8]()) })
        for entry in entries { harness.store.recordHits(entry.key, count: 2, at: Self.at(50)) }
        try harness.store.flushHits()
        let written =
            "SELECT count(*) FROM entry_access WHERE hit_count = 2 AND last_access = \(Self.at(50).timeIntervalSince1970)"
        #expect(try harness.count(written) == count)
        #expect(try harness.store.stats().entryCount == count)
    }

    /// What a flush costs the file: hits spread over a store change the pages of its narrow usage rows
    /// (`entry_access`, schema version 7), not those of the wide entry rows. Counted in WAL frames, one a
    /// changed page per transaction, with automatic checkpoints off so that the WAL keeps every frame.
    @Test func aFlushOfHitsSpreadOverTheStoreWritesTheUsageRowsNotTheEntryRows() throws {
        let harness = try StorageTestHarness()
        // 8 000 entries with a kilobyte of headers each: about 2 000 pages of entry rows.
        let padding = String(repeating: "p", count: 1000)
        let entries = (0..<8000).map {
            CacheCoreFixtures.makeEntry(url: "https://e.example/\($0)", extraHeaders: [("X-Padding", padding)])
        }
        try harness.store.bulkLoad(entries.lazy.map { ($0, [UInt8]()) })
        try harness.store.checkpoint()
        try harness.store.database.write { try $0.execute("PRAGMA wal_autocheckpoint = 0") }
        // Every other entry hit once: rows spread over every page of the entry table.
        for entry in entries.enumerated().filter({ $0.offset % 2 == 0 }).map(\.element) {
            harness.store.recordHits(entry.key, count: 1, at: Self.at(70))
        }
        try harness.store.flushHits()
        #expect(try harness.count("SELECT count(*) FROM entry_access WHERE hit_count = 1") == 4000)
        let frames = try harness.store.database.write {
            try $0.queryFirst("PRAGMA wal_checkpoint(PASSIVE)") { $0.int(1) }
        }
        // The usage rows and their LRU index are about a hundred pages; the entry rows' pages alone would
        // be some 2 000 frames.
        #expect(try #require(frames) < 400)
    }

    @Test func evictionLeavesTheHitsOfCandidatesItDidNotLookAt() throws {
        let (harness, clock, keys) = try Self.fullStoreOfThree()
        // The third oldest was used too; removing the second oldest is enough, so eviction never gets to it.
        harness.store.recordHits(keys[2], count: 3, at: clock.now())
        let body = CacheCoreFixtures.randomBody(length: 1000, seed: 9)
        try harness.put(CacheCoreFixtures.makeEntry(url: "https://e.example/new"), body)
        #expect(try harness.store.entry(for: keys[0]) == nil)
        #expect(try harness.store.entry(for: keys[2])?.hitCount == 3)
        try harness.store.flushHits()
        #expect(try harness.store.entry(for: keys[2])?.hitCount == 3)
    }
}

/// A clock tests move by hand; it starts at the fixtures' epoch.
private final class TestClock: Sendable {
    private let seconds = Mutex(0.0)
    func now() -> Date {
        CacheCoreFixtures.epoch.addingTimeInterval(
            seconds.withLock {
                $0 += 1; return $0
            })
    }
}
