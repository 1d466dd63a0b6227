import CacheCore
import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Storage

/// Hard purges in two steps: what a purge records is out of every read at once, and the reclaimer deletes
/// it afterwards; on a real SQLite file.
@Suite struct SQLiteCacheStoreReclaimTests {
    /// Keeps a store's reclaimer waiting until `release`, so that a test sees purged entries before they
    /// are reclaimed.
    final class ReclaimerHold: Sendable {
        private let gate = DispatchSemaphore(value: 0)

        init(_ store: SQLiteCacheStore) {
            store.reclaims.async { [gate] in gate.wait() }
        }

        func release() { gate.signal() }
    }

    static func entry(_ url: String, tags: [String] = []) -> StoredEntry {
        var entry = CacheCoreFixtures.makeEntry(url: url)
        entry.tags = tags
        return entry
    }

    /// Ten entries, the even ones tagged `even`.
    static func populated(_ harness: StorageTestHarness) throws -> [StoredEntry] {
        try (0..<10).map { index in
            try harness.put(entry("https://r.example/\(index)", tags: index % 2 == 0 ? ["even"] : []), [UInt8(index)])
        }
    }

    @Test func purgedEntriesAreOutOfEveryReadBeforeTheyAreReclaimed() throws {
        let harness = try StorageTestHarness()
        let entries = try Self.populated(harness)
        let before = try harness.store.stats()
        let hold = ReclaimerHold(harness.store)
        defer { hold.release() }
        #expect(try harness.store.purge(.tags(["even"])) == 5)
        // Still in the file: only recorded as purged.
        #expect(try harness.count("SELECT count(*) FROM entry") == 10)
        #expect(try harness.count("SELECT count(*) FROM entry_purged") == 5)
        for (index, entry) in entries.enumerated() {
            let found = try harness.store.entry(for: entry.key)
            #expect((found == nil) == (index % 2 == 0))
        }
        let listed = try harness.store.list(CacheEntryQuery(limit: 100)).entries
        #expect(Set(listed.map(\.url)) == Set(entries.enumerated().filter { $0.offset % 2 == 1 }.map(\.element.url)))
        #expect(try harness.store.previewPurge(.all, soft: false, limit: 100).count == 5)
        // A purged entry is no entry: not purged, marked, updated or deleted again.
        #expect(try harness.store.purge(.tags(["even"])) == 0)
        #expect(try harness.store.purge(.url(entries[0].url), soft: true) == 0)
        #expect(try harness.store.updateMetadata(entries[2]) == false)
        #expect(try harness.store.delete(entries[4].key) == false)
        // Counted apart: no longer entries, their bytes still in the file (one of them deleted just now).
        let footprint = before.totalBytes / 10
        #expect(
            try harness.store.stats()
                == CacheStoreStats(
                    entryCount: 5, totalBytes: 9 * footprint, maxSize: nil, reclaimingEntries: 4,
                    reclaimingBytes: 4 * footprint))
        hold.release()
        try harness.store.reclaimPurged()
        #expect(try harness.count("SELECT count(*) FROM entry") == 5)
        #expect(try harness.count("SELECT count(*) FROM entry_purged") == 0)
        #expect(try harness.count("SELECT count(*) FROM entry_tag") == 0)
        #expect(try harness.count("SELECT count(*) FROM chunk") == 5)
        #expect(
            try harness.store.stats() == CacheStoreStats(entryCount: 5, totalBytes: before.totalBytes / 2, maxSize: nil)
        )
        // Nothing left to check: lookups are back to the plain query.
        let mayExist = harness.store.purgedRowsMayExist.load(ordering: .relaxed)
        #expect(!mayExist)
    }

    @Test func theReclaimerRunsByItselfAfterAPurge() async throws {
        let harness = try StorageTestHarness()
        _ = try Self.populated(harness)
        #expect(try harness.store.purge(.all) == 10)
        let deadline = Date().addingTimeInterval(10)
        while try harness.count("SELECT count(*) FROM entry") > 0, Date() < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(try harness.count("SELECT count(*) FROM entry") == 0)
        #expect(harness.store.reclaimedCount == 10)
        #expect(try harness.store.stats() == CacheStoreStats(entryCount: 0, totalBytes: 0, maxSize: nil))
    }

    @Test func aCommitOfAPurgedKeyBeforeTheReclaimIsANewLiveEntry() throws {
        let harness = try StorageTestHarness()
        let entries = try Self.populated(harness)
        let hold = ReclaimerHold(harness.store)
        defer { hold.release() }
        #expect(try harness.store.purge(.url(entries[3].url)) == 1)
        #expect(try harness.store.entry(for: entries[3].key) == nil)
        try harness.put(entries[3], [42, 42])
        let again = try #require(try harness.store.entry(for: entries[3].key))
        #expect(try harness.read(again) == [42, 42])
        #expect(try harness.store.stats().entryCount == 10)
        #expect(try harness.store.stats().reclaimingEntries == 0)
        hold.release()
        try harness.store.reclaimPurged()
        #expect(try harness.store.entry(for: entries[3].key) != nil)
        #expect(try harness.store.stats().entryCount == 10)
    }

    @Test func purgedEntriesLeftByAProcessStayOutAndAreReclaimedByTheNext() throws {
        let directory = StorageTestDirectory()
        var keys: [CacheKey] = []
        // The first store's reclaimer never runs while the test looks: it goes away with the rows in the file.
        var hold: ReclaimerHold?
        defer { hold?.release() }
        do {
            let store = try SQLiteCacheStore(path: directory.file())
            for index in 0..<4 {
                let writer = try store.beginWrite(hints: CacheBodyHints())
                try writer.append([UInt8(index)])
                keys.append(try writer.commit(Self.entry("https://r.example/\(index)", tags: ["t"])).key)
            }
            hold = ReclaimerHold(store)
            #expect(try store.purge(.tags(["t"])) == 4)
            #expect(try store.stats().reclaimingEntries == 4)
        }
        let store = try SQLiteCacheStore(path: directory.file())
        for key in keys { #expect(try store.entry(for: key) == nil) }
        #expect(try store.stats().entryCount == 0)
        try store.reclaimPurged()
        #expect(try store.database.read { try $0.queryFirst("SELECT count(*) FROM entry") { $0.int(0) } } == 0)
        #expect(try store.stats() == CacheStoreStats(entryCount: 0, totalBytes: 0, maxSize: nil))
    }

    @Test func evictionTakesPurgedEntriesBeforeLiveOnesAndDoesNotCountThem() throws {
        let body = [UInt8](repeating: 7, count: 1000)
        let probe = try StorageTestHarness()
        try probe.put(Self.entry("https://r.example/probe"), body)
        let footprint = try probe.store.stats().totalBytes
        // Room for four entries.
        let harness = try StorageTestHarness(maxSize: footprint * 4 + footprint / 2)
        let entries = try (0..<4).map {
            try harness.put(Self.entry("https://r.example/\($0)", tags: ["t\($0 % 2)"]), body)
        }
        let hold = ReclaimerHold(harness.store)
        defer { hold.release() }
        #expect(try harness.store.purge(.tags(["t1"])) == 2)
        // Two new entries: the two purged ones make room, not the least recently used live ones.
        try harness.put(Self.entry("https://r.example/4"), body)
        try harness.put(Self.entry("https://r.example/5"), body)
        #expect(try harness.store.entry(for: entries[0].key) != nil)
        #expect(try harness.store.entry(for: entries[2].key) != nil)
        #expect(harness.store.evictedCount == 0)
        #expect(try harness.store.stats().reclaimingEntries == 0)
        #expect(try harness.store.stats().entryCount == 4)
    }

    @Test func aSweepDoesNotCountPurgedEntriesAsSwept() throws {
        let harness = try StorageTestHarness()
        let entries = try Self.populated(harness)
        let hold = ReclaimerHold(harness.store)
        defer { hold.release() }
        #expect(try harness.store.purge(.tags(["even"])) == 5)
        // Everything is past its sweep time a year on.
        #expect(try harness.store.sweep(now: entries[0].sweepAfter.addingTimeInterval(365 * 86400)) == 5)
        #expect(try harness.store.stats() == CacheStoreStats(entryCount: 0, totalBytes: 0, maxSize: nil))
    }
}
