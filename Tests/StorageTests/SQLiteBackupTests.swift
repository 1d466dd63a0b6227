import CacheCore
import Foundation
import TestSupport
import Testing

@testable import Storage

/// `SQLiteBackup`: a copy taken while another connection writes is complete, sound and readable.
@Suite struct SQLiteBackupTests {
    private func fill(_ harness: StorageTestHarness, count: Int, from start: Int = 0) throws -> [StoredEntry] {
        try (start..<start + count).map { index in
            let url = "https://backup.example/\(index)"
            return try harness.put(
                CacheCoreFixtures.makeEntry(url: url),
                CacheCoreFixtures.compressibleBody(length: 6000, seed: UInt64(index)))
        }
    }

    @Test func backupHoldsEveryEntryWithItsBodyAndPassesIntegrityCheck() throws {
        let harness = try StorageTestHarness()
        let entries = try fill(harness, count: 20)
        let destination = harness.directory.file("backup.db")
        var reports: [SQLiteBackup.Progress] = []
        let pages = try SQLiteBackup.copy(from: harness.directory.file(), to: destination, pagesPerStep: 2) {
            reports.append($0)
        }
        #expect(pages > 2)
        #expect(reports.count > 1)
        #expect(reports.last == SQLiteBackup.Progress(copiedPages: pages, totalPages: pages))
        // The verifying check closed the copy cleanly: nothing beside it but the file itself.
        for suffix in ["-wal", "-shm", ".partial", ".partial-wal", ".partial-journal"] {
            #expect(!FileManager.default.fileExists(atPath: destination + suffix), "\(suffix)")
        }
        #expect(try SQLiteBackup.integrityProblems(path: destination).isEmpty)
        let copy = try SQLiteCacheStore(path: destination)
        for (index, entry) in entries.enumerated() {
            let stored = try #require(try copy.entry(for: entry.key))
            let reader = try copy.openBody(of: stored, form: .identity)
            var body: [UInt8] = []
            while let piece = try reader.next() { body += piece }
            #expect(sameBytes(body, CacheCoreFixtures.compressibleBody(length: 6000, seed: UInt64(index))))
        }
        #expect(!FileManager.default.fileExists(atPath: destination + ".partial"))
    }

    @Test func backupTakenDuringWritesIsOneConsistentSnapshot() async throws {
        let harness = try StorageTestHarness()
        _ = try fill(harness, count: 30)
        let destination = harness.directory.file("during.db")
        let store = harness.store
        let writer = BackgroundLoop { index in
            let entry = CacheCoreFixtures.makeEntry(url: "https://backup.example/\(1000 + index)")
            guard let body = try? store.beginWrite(hints: CacheBodyHints(headers: entry.headers)) else { return true }
            try? body.append(CacheCoreFixtures.randomBody(length: 9000, seed: UInt64(index)))
            _ = try? body.commit(entry)
            return true
        }
        #expect(await waitUntil(timeout: .seconds(10)) { writer.iterations >= 3 })
        // One page per step: the copy spans many writer commits.
        try SQLiteBackup.copy(from: harness.directory.file(), to: destination, pagesPerStep: 1)
        #expect(await writer.stop() >= 3)
        #expect(try SQLiteBackup.integrityProblems(path: destination).isEmpty)
        // Every entry of the snapshot has its whole body: the stats triggers and the rows agree.
        let copy = try SQLiteCacheStore(path: destination)
        let summary = try CacheDatabaseSummary.read(path: destination)
        #expect(summary.entries >= 30)
        #expect(try copy.stats().entryCount == summary.entries)
        var cursor: String?
        var seen = 0
        repeat {
            let page = try copy.list(CacheEntryQuery(limit: 50, cursor: cursor))
            for entry in page.entries {
                let reader = try copy.openBody(of: entry, form: .identity)
                var length = 0
                while let piece = try reader.next() { length += piece.count }
                #expect(length == reader.length)
                seen += 1
            }
            cursor = page.nextCursor
        } while cursor != nil
        #expect(seen == summary.entries)
    }

    @Test func existingDestinationIsKeptUnlessOverwriteIsAsked() throws {
        let harness = try StorageTestHarness()
        _ = try fill(harness, count: 2)
        let destination = harness.directory.file("exists.db")
        _ = FileManager.default.createFile(atPath: destination, contents: Data("keep me".utf8))
        #expect(throws: CacheStoreError.self) {
            try SQLiteBackup.copy(from: harness.directory.file(), to: destination)
        }
        #expect(FileManager.default.contents(atPath: destination) == Data("keep me".utf8))
        // A stale WAL beside the old file would be replayed over the new one: overwrite removes it.
        _ = FileManager.default.createFile(atPath: destination + "-wal", contents: Data("stale".utf8))
        try SQLiteBackup.copy(from: harness.directory.file(), to: destination, overwrite: true)
        #expect(!FileManager.default.fileExists(atPath: destination + "-wal"))
        #expect(try SQLiteBackup.integrityProblems(path: destination).isEmpty)
        #expect(try CacheDatabaseSummary.read(path: destination).entries == 2)
    }

    @Test(arguments: ["missing.db", "garbage.db"])
    func unreadableSourceFailsAndLeavesNoFile(_ name: String) throws {
        let directory = StorageTestDirectory()
        if name == "garbage.db" {
            _ = FileManager.default.createFile(
                atPath: directory.file(name), contents: Data(repeating: 0x41, count: 8192))
        }
        let destination = directory.file("out.db")
        #expect(throws: CacheStoreError.self) {
            try SQLiteBackup.copy(from: directory.file(name), to: destination)
        }
        #expect(!FileManager.default.fileExists(atPath: destination))
        #expect(!FileManager.default.fileExists(atPath: destination + ".partial"))
    }
}
