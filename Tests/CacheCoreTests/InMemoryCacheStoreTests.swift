import CacheCore
import Foundation
import TestSupport
import Testing

@Suite struct InMemoryCacheStoreTests {
    private func put(_ store: InMemoryCacheStore, _ entry: StoredEntry, _ body: [UInt8]) throws -> StoredEntry {
        let writer = try store.beginWrite(hints: CacheBodyHints(headers: entry.headers))
        for piece in stride(from: 0, to: body.count, by: 1000) {
            try writer.append(Array(body[piece..<min(piece + 1000, body.count)]))
        }
        return try writer.commit(entry)
    }

    private func readAll(_ reader: any CacheBodyReader) throws -> [UInt8] {
        var out = [UInt8]()
        while let piece = try reader.next() { out += piece }
        return out
    }

    @Test func bodyRoundTripsWithFactsFilledIn() throws {
        let store = InMemoryCacheStore(chunkSize: 1024)
        let body = CacheCoreFixtures.compressibleBody(length: 5000)
        let stored = try put(store, CacheCoreFixtures.makeEntry(), body)
        #expect(stored.originalSize == 5000)
        #expect(stored.crc32 == ReferenceCRC32.checksum(body))
        let found = try #require(try store.entry(for: stored.key))
        #expect(try sameBytes(readAll(store.openBody(of: found, form: .identity)), body))
        #expect(try sameBytes(readAll(store.openBody(of: found, form: .range(1023..<2049))), Array(body[1023..<2049])))
        #expect(throws: CacheStoreError.formUnavailable) { try store.openBody(of: found, form: .gzip) }
        #expect(throws: CacheStoreError.invalidRange(0..<5001, length: 5000)) {
            try store.openBody(of: found, form: .range(0..<5001))
        }
    }

    @Test func abandonedWriteLeavesNothing() throws {
        let store = InMemoryCacheStore()
        let writer = try store.beginWrite(hints: CacheBodyHints())
        try writer.append([1, 2, 3])
        writer.abandon()
        #expect(throws: CacheStoreError.writerClosed) { try writer.commit(CacheCoreFixtures.makeEntry()) }
        #expect(try store.stats().entryCount == 0)
    }

    @Test func evictionKeepsTheBoundAndDropsLeastRecentlyUsed() throws {
        let store = InMemoryCacheStore(maxSize: 3 * (1000 + InMemoryCacheStore.entryOverhead))
        var keys = [CacheKey]()
        for index in 0..<3 {
            let entry = CacheCoreFixtures.makeEntry(url: "https://e.example/\(index)")
            keys.append(try put(store, entry, CacheCoreFixtures.randomBody(length: 1000)).key)
        }
        store.recordHit(keys[0], at: CacheCoreFixtures.epoch.addingTimeInterval(10))
        _ = try put(
            store, CacheCoreFixtures.makeEntry(url: "https://e.example/3"), CacheCoreFixtures.randomBody(length: 1000))
        #expect(try store.entry(for: keys[0]) != nil)
        #expect(try store.entry(for: keys[1]) == nil)
        #expect(try store.stats().totalBytes <= store.maxSize!)
    }

    @Test func filterChainSavesAreVersionChecked() throws {
        let store = InMemoryCacheStore()
        let saved = try store.saveFilterChain([FilterRecord(name: "a", json: "{}")], expectedVersion: 0)
        #expect(saved.version == 1)
        #expect(throws: CacheStoreError.versionConflict(current: 1)) {
            try store.saveFilterChain([], expectedVersion: 0)
        }
        #expect(throws: CacheStoreError.duplicateFilterName("a")) {
            try store.saveFilterChain(
                [FilterRecord(name: "a", json: "{}"), FilterRecord(name: "a", json: "[]")], expectedVersion: nil)
        }
        #expect(try store.loadFilterChain() == saved)
    }

    @Test func anEntryReplacedMeanwhileIsNotDeleted() throws {
        let store = InMemoryCacheStore()
        let old = try put(store, CacheCoreFixtures.makeEntry(), [1, 2, 3])
        let new = try put(store, CacheCoreFixtures.makeEntry(), [4, 5, 6, 7])
        #expect(old.key == new.key && old.bodyID != new.bodyID)
        #expect(try store.delete(old) == false)
        #expect(try store.entry(for: new.key)?.bodyID == new.bodyID)
        #expect(try store.delete(new))
        #expect(try store.entry(for: new.key) == nil)
    }
}
