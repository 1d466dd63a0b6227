import CacheCore
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Storage

/// `SQLiteCheckpointer`: commits leave the WAL to a checkpoint on another thread, and the log still
/// starts over before it grows past `restartPages`.
@Suite struct SQLiteCheckpointerTests {
    /// A WAL frame: the page and its 24-byte header.
    static let frameBytes = 4096 + 24

    private func walBytes(_ harness: StorageTestHarness) -> Int {
        let path = harness.store.configuration.path + "-wal"
        return ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    /// Stores entries, one commit each, until `done` says so or `limit` entries were stored.
    private func storeUntil(_ harness: StorageTestHarness, limit: Int, _ done: () -> Bool) throws -> Int {
        for index in 0..<limit {
            if done() { return index }
            let body = CacheCoreFixtures.randomBody(length: 1024, seed: UInt64(index))
            try harness.put(CacheCoreFixtures.makeEntry(url: "https://wal.example/\(index)"), body)
        }
        return limit
    }

    @Test func commitsDoNotCheckpointAndTheCheckpointerDoes() async throws {
        let harness = try StorageTestHarness()
        let checkpointer = harness.store.database.checkpointer
        checkpointer.queue.suspend()
        // With SQLite's automatic checkpoint the commit past 1 000 pages would copy them into the file and
        // the next would start the log over: it would never reach 1.5 times that.
        let target = SQLiteCheckpointer.threshold * 3 / 2 * Self.frameBytes
        let stored = try storeUntil(harness, limit: 5000) { walBytes(harness) > target }
        #expect(walBytes(harness) > target, "the WAL stopped growing after \(stored) commits")
        #expect(checkpointer.runs.load(ordering: .relaxed) == 0)
        // One checkpoint was asked for, and runs once its thread may.
        checkpointer.queue.resume()
        #expect(await waitUntil(timeout: .seconds(10)) { checkpointer.runs.load(ordering: .relaxed) >= 1 })
        // Every entry is still there, from the file or the log.
        #expect(try harness.count("SELECT count(*) FROM entry") == stored)
    }

    @Test func theWriterRestartsALogItsCheckpointsCannotEnd() throws {
        let harness = try StorageTestHarness()
        let checkpointer = harness.store.database.checkpointer
        checkpointer.queue.suspend()
        defer { checkpointer.queue.resume() }
        // About three times the restart length of commits (each writes about ten frames) with no
        // checkpoint from the other thread: the log grows to `restartPages`, where the writer copies it
        // itself, and then starts over instead of growing on.
        var largest = 0
        _ = try storeUntil(harness, limit: SQLiteCheckpointer.restartPages / 4) {
            largest = max(largest, walBytes(harness))
            return false
        }
        let bound = (SQLiteCheckpointer.restartPages + 200) * Self.frameBytes
        #expect(largest <= bound, "the WAL reached \(largest) bytes")
        // It did reach the restart length: no commit checkpointed on the way (SQLite's automatic
        // checkpoint would have kept it near 1 000 pages).
        #expect(largest > (SQLiteCheckpointer.restartPages - SQLiteCheckpointer.threshold) * Self.frameBytes)
    }
}
