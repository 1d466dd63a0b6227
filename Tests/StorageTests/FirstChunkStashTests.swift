import CacheCore
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Storage

/// A lookup reads a one-chunk body's chunk in its own statement, and the body read that follows on the
/// same thread uses that chunk: one read transaction per hit from the store, and one snapshot.
@Suite struct FirstChunkStashTests {
    /// Stores `count` one-chunk bodies, so that the body ids and chunk ids are not all 1 (a join on the
    /// wrong chunk id finds another body's chunk or none).
    private func fill(_ harness: StorageTestHarness, count: Int) throws -> [(StoredEntry, [UInt8])] {
        try (0..<count).map { index in
            // Every third body spans three chunks: its first is kept as a one-chunk body's is.
            let length = index % 3 == 2 ? 2 * StorageTestHarness.chunkSize + 100 : 100 + index * 37
            let body = CacheCoreFixtures.randomBody(length: length, seed: UInt64(index + 1))
            let entry = try harness.put(CacheCoreFixtures.makeEntry(url: "https://example.com/\(index)"), body)
            return (entry, body)
        }
    }

    /// Between the lookup and the body read the first chunk is deleted: the read still returns the bytes
    /// the lookup's snapshot held, because it does not read that chunk again. Without the stash it would
    /// find the chunk missing.
    @Test func theBodyReadAfterALookupUsesTheChunkTheLookupRead() throws {
        let harness = try StorageTestHarness()
        for (index, (entry, body)) in try fill(harness, count: 6).enumerated() {
            let found = try #require(try harness.store.entry(for: entry.key))
            try harness.sql(
                "DELETE FROM chunk WHERE id = ?", [.integer(found.bodyID << StorageSchema.chunkIDShift)])
            // Piece by piece, and whole (what a hit does).
            let read =
                index.isMultiple(of: 2)
                ? try harness.read(found) : try harness.store.openBody(of: found, form: .identity).readAll()
            #expect(read == body)
            // Taken once: a second read of the entry reads SQLite, and finds the chunk gone.
            #expect(throws: CacheStoreError.self) { try harness.read(found) }
        }
    }

    /// While purged entries wait for the reclaimer the lookup leaves them out, and still reads the first
    /// chunk of what it finds; a purged entry is not found at all.
    @Test func theLookupThatLeavesOutPurgedEntriesKeepsTheChunkToo() throws {
        let harness = try StorageTestHarness()
        let filled = try fill(harness, count: 4)
        let hold = SQLiteCacheStoreReclaimTests.ReclaimerHold(harness.store)
        defer { hold.release() }
        #expect(try harness.store.purge(CachePurgeScope(url: filled[0].0.url)) == 1)
        let mayExist = harness.store.purgedRowsMayExist.load(ordering: .acquiring)
        #expect(mayExist)
        #expect(try harness.store.entry(for: filled[0].0.key) == nil)
        let (entry, body) = filled[3]
        let found = try #require(try harness.store.entry(for: entry.key))
        try harness.sql("DELETE FROM chunk WHERE id = ?", [.integer(found.bodyID << StorageSchema.chunkIDShift)])
        #expect(try harness.read(found) == body)
    }

    /// Another thread's body read does not see this thread's chunk; this thread's still does.
    @Test func aChunkKeptOnOneThreadIsNotUsedOnAnother() throws {
        let harness = try StorageTestHarness()
        let (entry, body) = try #require(try fill(harness, count: 2).last)
        // Synchronous throughout: the test's own thread must not change between the lookup and its read.
        let found = try #require(try harness.store.entry(for: entry.key))
        try harness.sql("DELETE FROM chunk WHERE id = ?", [.integer(found.bodyID << StorageSchema.chunkIDShift)])
        let store = harness.store
        let otherThreadRead = Mutex<Bool?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let opened = (try? store.openBody(of: found, form: .identity)) != nil
            otherThreadRead.withLock { $0 = opened }
            done.signal()
        }
        thread.start()
        done.wait()
        #expect(otherThreadRead.withLock { $0 } == false)
        #expect(try harness.read(found) == body)
    }

    /// Two stores with the same body ids: a lookup in one never hands its chunk to the other's read, which
    /// leaves it for its own store's.
    @Test func aChunkKeptForOneStoreIsNotUsedByAnother() throws {
        let first = try StorageTestHarness()
        let second = try StorageTestHarness()
        let (entryA, _) = try #require(try fill(first, count: 1).first)
        let bodyB = CacheCoreFixtures.randomBody(length: 300, seed: 99)
        let entryB = try second.put(CacheCoreFixtures.makeEntry(url: "https://example.com/0"), bodyB)
        let foundA = try #require(try first.store.entry(for: entryA.key))
        let foundB = try #require(try second.store.entry(for: entryB.key))
        #expect(foundA.bodyID == foundB.bodyID)
        _ = try first.store.entry(for: entryA.key)
        try second.sql("DELETE FROM chunk")
        #expect(throws: CacheStoreError.self) { try second.read(foundB) }
        try first.sql("DELETE FROM chunk")
        #expect(try first.read(foundA).count == foundA.originalSize)
    }

    /// A first chunk that fails its CRC-32 is not kept: the body read finds the damage, deletes the entry
    /// and reports it, as it does for every chunk it reads.
    @Test func aCorruptFirstChunkIsFoundByTheBodyRead() throws {
        let harness = try StorageTestHarness()
        let (entry, _) = try #require(try fill(harness, count: 2).last)
        try harness.sql(
            "UPDATE chunk SET crc32 = (crc32 + 1) % 4294967296 WHERE id = ?",
            [.integer(entry.bodyID << StorageSchema.chunkIDShift)])
        let found = try #require(try harness.store.entry(for: entry.key))
        #expect {
            try harness.read(found)
        } throws: { error in
            if case .corruptEntryDeleted? = error as? CacheStoreError { return true }
            return false
        }
        #expect(try harness.store.entry(for: entry.key) == nil)
    }
}
