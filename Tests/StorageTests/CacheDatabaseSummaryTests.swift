import CacheCore
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Storage

/// `CacheDatabaseSummary`: what `larder stats` prints, read from the file.
@Suite struct CacheDatabaseSummaryTests {
    @Test func summaryCountsEntriesBytesHitsHostsAndDates() throws {
        var now = CacheCoreFixtures.epoch
        let clock = Mutex(now)
        let harness = try StorageTestHarness(clock: { clock.withLock { $0 } })
        let urls = [
            "https://a.example/1", "https://a.example/2", "https://a.example/3", "https://b.example/big",
        ]
        var entries: [StoredEntry] = []
        for (index, url) in urls.enumerated() {
            let length = url.hasSuffix("big") ? 40_000 : 1000
            entries.append(
                try harness.put(
                    CacheCoreFixtures.makeEntry(url: url),
                    CacheCoreFixtures.randomBody(length: length, seed: UInt64(index))))
            now += 60
            clock.withLock { $0 = now }
        }
        for _ in 0..<5 { harness.store.recordHit(entries[3].key, at: now) }
        harness.store.recordHit(entries[0].key, at: now)
        try harness.store.flushHits()

        let summary = try CacheDatabaseSummary.read(path: harness.directory.file(), topHosts: 1)
        #expect(summary.entries == 4)
        #expect(summary.recordedHits == 6)
        #expect(summary.storedBytes == (try harness.store.stats().totalBytes))
        #expect(summary.originalBodyBytes == 43_000)
        #expect(summary.oldest == CacheCoreFixtures.epoch)
        #expect(summary.newest == CacheCoreFixtures.epoch + 180)
        #expect(summary.topHostsByEntries.map(\.host) == ["a.example"])
        #expect(summary.topHostsByEntries.first?.entries == 3)
        #expect(summary.topHostsByBytes.map(\.host) == ["b.example"])
        #expect(summary.fileBytes > 0)
    }

    @Test func purgedEntriesNotYetReclaimedAreCountedApartInTheStoredBytes() throws {
        let harness = try StorageTestHarness()
        for url in ["https://a.example/1", "https://a.example/2", "https://b.example/1"] {
            try harness.put(CacheCoreFixtures.makeEntry(url: url), [UInt8](repeating: 1, count: 100))
        }
        let stored = try harness.store.stats().totalBytes
        let hold = SQLiteCacheStoreReclaimTests.ReclaimerHold(harness.store)
        defer { hold.release() }
        #expect(try harness.store.purge(.host("a.example")) == 2)
        let summary = try CacheDatabaseSummary.read(path: harness.directory.file())
        #expect(summary.entries == 1)
        #expect(summary.reclaimingEntries == 2)
        #expect(summary.storedBytes == stored)
        #expect(summary.reclaimingBytes == stored / 3 * 2)
        #expect(summary.originalBodyBytes == 100)
        #expect(summary.topHostsByEntries.map(\.host) == ["b.example"])
    }

    @Test func emptyDatabaseHasNoDatesAndNoHosts() throws {
        let harness = try StorageTestHarness()
        let summary = try CacheDatabaseSummary.read(path: harness.directory.file())
        #expect(summary.entries == 0)
        #expect(summary.oldest == nil && summary.newest == nil)
        #expect(summary.topHostsByEntries.isEmpty && summary.topHostsByBytes.isEmpty)
    }

    @Test(arguments: ["missing.db", "garbage.db", "empty-sqlite.db"])
    func fileThatIsNoLarderDatabaseIsReportedNotCreated(_ name: String) throws {
        let directory = StorageTestDirectory()
        let path = directory.file(name)
        switch name {
        case "garbage.db":
            _ = FileManager.default.createFile(atPath: path, contents: Data(repeating: 0x41, count: 8192))
        case "empty-sqlite.db":
            _ = try SQLiteConnection(path: path, readOnly: false)
        default: break
        }
        #expect(throws: CacheStoreError.self) { try CacheDatabaseSummary.read(path: path) }
        if name == "missing.db" { #expect(!FileManager.default.fileExists(atPath: path)) }
    }
}
