import CacheCore
import Foundation
import HTTPCore
import Synchronization
import TestSupport
import Testing

@testable import Storage

@Suite struct SQLiteCacheStoreTests {
    @Test func everyMetadataFieldRoundTrips() throws {
        let harness = try StorageTestHarness()
        var entry = CacheCoreFixtures.makeEntry(
            url: "https://Img.example/a.png", status: 301, contentType: "image/png",
            extraHeaders: [
                ("Location", "https://img.example/b.png"), ("ETag", "\"x:y\""), ("Set-Thing", "a: b: c"),
                ("Set-Thing", "second"),
            ],
            varyNames: ["Accept-Encoding"], freshness: 123.5, staleAllowance: 60)
        entry.ageReceived = 7
        entry.imageFormat = "png"
        entry.filterName = "webkit-images"
        let stored = try harness.put(entry, [1, 2, 3])
        let found = try #require(try harness.store.entry(for: entry.key))
        #expect(found == stored)
        #expect(found.status.code == 301)
        #expect(found.location == "https://img.example/b.png")
        #expect(found.headers.values(for: "set-thing") == ["a: b: c", "second"])
        #expect(found.etag == "\"x:y\"")
        #expect(found.varyNames == ["accept-encoding"])
        #expect(found.host == "img.example")
        #expect(found.created == CacheCoreFixtures.epoch)
        #expect(
            try harness.store.varyNames(forPrimaryKey: CacheKey.make(canonicalURL: entry.url)) == ["accept-encoding"])
    }

    /// Bodies are deflated at the configured zlib level (`--store-deflate-level`): level 1 stores a compressible
    /// body larger than level 9 does, and both read back as they came.
    @Test func theDeflateLevelSetsHowSmallABodyIsStored() throws {
        let body = CacheCoreFixtures.compressibleBody(length: 3 * StorageTestHarness.chunkSize)
        var sizes: [Int] = []
        for level: Int32 in [1, 9] {
            let harness = try StorageTestHarness(deflateLevel: level)
            let stored = try harness.put(CacheCoreFixtures.makeEntry(url: "https://z.example/\(level)"), body)
            #expect(stored.codec == .deflateChunked)
            #expect(try harness.read(stored) == body)
            sizes.append(stored.storedSize)
        }
        #expect(sizes[0] > sizes[1])
    }

    @Test func rowIDIsTheKeysFirst64BitsBigEndian() {
        let key = CacheKey(hex: "0f115db062b7c0dd030b16878c99dea5c354b49dc37b38eb8846179c7783e9d7")!
        #expect(SQLiteCacheStore.rowID(key) == 0x0f11_5db0_62b7_c0dd)
        let high = CacheKey(hex: "f" + String(repeating: "0", count: 63))!
        #expect(SQLiteCacheStore.rowID(high) == Int64(bitPattern: 0xf000_0000_0000_0000))
    }

    @Test func varyNamesAreClearedWhenTheURLStopsVarying() throws {
        let harness = try StorageTestHarness()
        let url = "https://e.example/v"
        let variant = CacheKey.make(canonicalURL: url, varyingHeaders: [("accept", "a")])
        try harness.put(CacheCoreFixtures.makeEntry(url: url, varyNames: ["Accept"], key: variant), [1])
        #expect(try harness.store.varyNames(forPrimaryKey: CacheKey.make(canonicalURL: url)) == ["accept"])
        try harness.put(CacheCoreFixtures.makeEntry(url: url), [2])
        #expect(try harness.store.varyNames(forPrimaryKey: CacheKey.make(canonicalURL: url)) == nil)
    }

    @Test func revalidationUpdatesMetadataButNotTheBody() throws {
        let harness = try StorageTestHarness()
        let body = CacheCoreFixtures.compressibleBody(length: 9000)
        var entry = try harness.put(CacheCoreFixtures.makeEntry(), body)
        entry.headers.replaceOrAdd(name: "ETag", value: "\"v2\"")
        entry.responseTime = CacheCoreFixtures.epoch.addingTimeInterval(100)
        entry.freshnessLifetime = 999
        #expect(try harness.store.updateMetadata(entry))
        let found = try #require(try harness.store.entry(for: entry.key))
        #expect(found.etag == "\"v2\"")
        #expect(found.freshnessLifetime == 999)
        #expect(try sameBytes(harness.read(found), body))
        // A stale handle (the entry was replaced meanwhile) does not overwrite the new entry.
        try harness.put(CacheCoreFixtures.makeEntry(), [9])
        #expect(try harness.store.updateMetadata(entry) == false)
    }

    @Test func hitsAreBatchedAndVisibleBeforeTheyAreWritten() throws {
        let harness = try StorageTestHarness()
        let stored = try harness.put(CacheCoreFixtures.makeEntry(), [1])
        let later = CacheCoreFixtures.epoch.addingTimeInterval(50)
        harness.store.recordHit(stored.key, at: later)
        harness.store.recordHit(stored.key, at: later)
        // A caller that batched its own hits (the hot tier) hands them over as one count.
        harness.store.recordHits(stored.key, count: 5, at: later)
        // No usage row until the first hits are written (`insert` writes none).
        #expect(try harness.count("SELECT count(*) FROM entry_access") == 0)
        #expect(try harness.store.entry(for: stored.key)?.hitCount == 7)
        try harness.store.flushHits()
        #expect(try harness.count("SELECT hit_count FROM entry_access") == 7)
        #expect(try harness.store.entry(for: stored.key)?.lastAccess == later)
    }

    @Test func abandonedAndReleasedWritersLeaveNothing() throws {
        let harness = try StorageTestHarness()
        let writer = try harness.store.beginWrite(hints: CacheBodyHints())
        try writer.append(CacheCoreFixtures.randomBody(length: 3 * StorageTestHarness.chunkSize))
        #expect(try harness.count("SELECT count(*) FROM chunk") == 2)
        writer.abandon()
        #expect(try harness.count("SELECT count(*) FROM chunk") == 0)
        #expect(throws: CacheStoreError.writerClosed) { try writer.append([1]) }
        do {
            let dropped = try harness.store.beginWrite(hints: CacheBodyHints())
            try dropped.append(CacheCoreFixtures.randomBody(length: 2 * StorageTestHarness.chunkSize))
        }
        #expect(try harness.count("SELECT count(*) FROM chunk") == 0)
        #expect(try harness.count("SELECT count(*) FROM pending_body") == 0)
        #expect(try harness.store.stats().entryCount == 0)
    }

    @Test func uncommittedBodiesAreInvisibleAndClearedAtStartup() throws {
        let directory = StorageTestDirectory()
        let configuration = SQLiteCacheStore.Configuration(path: directory.file(), chunkSize: 4096)
        var store: SQLiteCacheStore? = try SQLiteCacheStore(configuration: configuration)
        let writer = try store!.beginWrite(hints: CacheBodyHints())
        try writer.append(CacheCoreFixtures.randomBody(length: 3 * 4096))
        #expect(try store!.stats().entryCount == 0)
        // Simulate a crash: the pending rows stay behind when the writer never finishes.
        let leaked = Unmanaged.passRetained(writer as AnyObject)
        store = nil
        let reopened = try SQLiteCacheStore(configuration: configuration)
        let chunks = try reopened.database.read { try $0.queryFirst("SELECT count(*) FROM chunk") { $0.int(0) } }
        #expect(chunks == 0)
        leaked.release()
    }

    @Test func sweepClearsAbandonedBodiesButNotOnesBeingWritten() throws {
        let harness = try StorageTestHarness()
        let body = CacheCoreFixtures.randomBody(length: 3 * StorageTestHarness.chunkSize)
        let writer = try harness.store.beginWrite(hints: CacheBodyHints())
        try writer.append(Array(body[..<(2 * StorageTestHarness.chunkSize + 1)]))
        // A body no live writer owns (as if its writer's cleanup had failed).
        try harness.sql("INSERT INTO pending_body (id, started) VALUES (999, 0)")
        try harness.sql("INSERT INTO chunk (id, crc32, data) VALUES (?, 0, x'00')", [.integer(999 << 24)])
        try harness.store.sweep(now: CacheCoreFixtures.epoch)
        #expect(try harness.count("SELECT count(*) FROM pending_body") == 1)
        #expect(try harness.count("SELECT count(*) FROM chunk WHERE id >= \(999 << 24)") == 0)
        try writer.append(Array(body[(2 * StorageTestHarness.chunkSize + 1)...]))
        let stored = try writer.commit(CacheCoreFixtures.makeEntry())
        #expect(try sameBytes(harness.read(stored), body))
        #expect(try harness.count("SELECT count(*) FROM pending_body") == 0)
    }

    @Test func evictionKeepsTheSizeBoundUnderAStreamOfInserts() throws {
        let maxSize = 60_000
        let clockTick = Mutex(0.0)
        let harness = try StorageTestHarness(maxSize: maxSize) {
            CacheCoreFixtures.epoch.addingTimeInterval(
                clockTick.withLock {
                    $0 += 1; return $0
                })
        }
        var keys = [CacheKey]()
        for index in 0..<100 {
            let body = CacheCoreFixtures.randomBody(length: 1000 + index * 37, seed: UInt64(index))
            keys.append(try harness.put(CacheCoreFixtures.makeEntry(url: "https://e.example/\(index)"), body).key)
            // Keep entry 0 hot: it must survive although it is the oldest.
            harness.store.recordHit(keys[0], at: CacheCoreFixtures.epoch.addingTimeInterval(10_000 + Double(index)))
            let stats = try harness.store.stats()
            #expect(stats.totalBytes <= maxSize)
            #expect(try harness.count("SELECT sum(footprint) FROM entry") == stats.totalBytes)
            #expect(try harness.count("SELECT count(*) FROM entry") == stats.entryCount)
        }
        #expect(try harness.store.entry(for: keys[0]) != nil)
        #expect(try harness.store.entry(for: keys[1]) == nil)
        #expect(try harness.store.entry(for: keys[99]) != nil)
        // Evicted entries took their chunks with them.
        let expectedChunks = try harness.count("SELECT sum((original_size + chunk_size - 1) / chunk_size) FROM entry")
        #expect(try harness.count("SELECT count(*) FROM chunk") == expectedChunks)
    }

    /// Eviction runs in the commit's transaction under a savepoint: when it fails, it undoes only itself, and
    /// the entries of the commit are stored all the same (the next commit evicts again).
    @Test func aFailedEvictionLeavesTheCommittedEntriesStored() throws {
        let harness = try StorageTestHarness(maxSize: 3_000)
        let first = try harness.put(
            CacheCoreFixtures.makeEntry(url: "https://e.example/first"),
            CacheCoreFixtures.randomBody(length: 2000, seed: 1))
        // Every eviction ends by writing the hand: make that write fail.
        try harness.sql(
            "CREATE TRIGGER hand_fails BEFORE UPDATE ON eviction_hand BEGIN SELECT RAISE(ABORT, 'no eviction'); END")
        let second = try harness.put(
            CacheCoreFixtures.makeEntry(url: "https://e.example/second"),
            CacheCoreFixtures.randomBody(length: 2000, seed: 2))
        #expect(try harness.store.entry(for: first.key) != nil)
        #expect(try harness.store.entry(for: second.key) != nil)
        #expect(try harness.store.stats().totalBytes > 3_000)
        #expect(harness.store.evictedCount == 0)
    }

    /// Eviction walks insertion order (`SQLiteEvictionHand`): in its first lap over a new store it spares
    /// every entry that was hit and takes the others oldest first. 2 000 entries loaded in order, every
    /// third one hit; a bound that takes about a hundred. What goes is exactly the oldest entries never
    /// hit, none of the hit ones, and nothing after the first gap.
    @Test func evictionTakesTheOldestEntriesNeverHitAndSparesTheHitOnes() throws {
        let (evicted, bounded, _) = try Self.evictionOfAboutAHundredOf2000 { index, created in
            index % 3 == 0 ? created : nil
        }
        #expect(evicted.count >= 100)
        #expect(evicted.count < 200)
        #expect(evicted == Array((0..<2000).filter { $0 % 3 != 0 }.prefix(evicted.count)))
        #expect(bounded.evictedCount == evicted.count)
    }

    /// The hand is kept in the store (`eviction_hand`): a store opened again goes on where the last one
    /// stopped. The first process spares the even entries (hit) and takes odd ones; then every usage row is
    /// dropped, so that a hand starting again from the oldest entry would take the even ones behind the
    /// place the first stopped at. The second process takes only entries after that place.
    @Test func theNextProcessGoesOnWhereTheHandStopped() throws {
        let (first, bounded, directory) = try Self.evictionOfAboutAHundredOf2000 { index, created in
            index % 2 == 0 ? created : nil
        }
        let stoppedAt = try #require(first.last)
        #expect(first == Array((0...stoppedAt).filter { $0 % 2 == 1 }))
        try bounded.database.write { try $0.execute("DELETE FROM entry_access") }
        let total = try bounded.stats().totalBytes
        let reopened = try SQLiteCacheStore(path: directory.file(), maxSize: total - 50 * (total / 2000))
        let writer = try reopened.beginWrite(hints: CacheBodyHints())
        try writer.append([2])
        try writer.commit(CacheCoreFixtures.makeEntry(url: "https://e.example/newer"))
        let entries = (0..<2000).map { CacheCoreFixtures.makeEntry(url: "https://e.example/\($0)") }
        let gone = try entries.indices.filter { try reopened.entry(for: entries[$0].key) == nil }
        let taken = gone.filter { !first.contains($0) }
        #expect(taken.count >= 40)
        #expect(taken == Array((stoppedAt + 1)..<(stoppedAt + 1 + taken.count)))
    }

    /// An entry stored after a lap began falls after the lap's end even when the newest entries were deleted
    /// meanwhile: it never takes a deleted entry's `seq` inside the lap (where the hand could take it before
    /// it had a lap to be used).
    @Test func anEntryStoredAfterALapBeganFallsAfterItsEndEvenWhenTheNewestWereDeleted() throws {
        let (_, bounded, _) = try Self.evictionOfAboutAHundredOf2000 { _, _ in nil }
        let lapEnd = try bounded.database.read {
            try $0.queryFirst("SELECT lap_end FROM eviction_hand WHERE id = 1") { $0.int64(0) }
        }
        let newest = try #require(try bounded.list(CacheEntryQuery(limit: 1)).entries.first)
        #expect(try bounded.delete(newest.key))
        let writer = try bounded.beginWrite(hints: CacheBodyHints())
        try writer.append([4])
        let later = try writer.commit(CacheCoreFixtures.makeEntry(url: "https://e.example/later"))
        let seq = try bounded.database.read {
            try $0.queryFirst("SELECT seq FROM entry WHERE id = ?", [.integer(SQLiteCacheStore.rowID(later.key))]) {
                $0.int64(0)
            }
        }
        #expect(try #require(seq) > (try #require(lapEnd)))
    }

    /// A lap that spares nearly everything is walked a bounded number of entries per commit
    /// (`evictionSpareLimit`): the commit is not held up by a walk over the whole store, which stays above
    /// its bound until the hand reaches entries it takes.
    @Test func oneEvictionSparesABoundedNumberOfEntries() throws {
        let count = SQLiteCacheStore.evictionSpareLimit + 2000
        // Hit once, long ago: spared by the first lap, which spares every entry ever hit, not by the next.
        let (evicted, bounded, _) = try Self.evictionOfAboutAHundredOf2000(count: count) { index, _ in
            index < count - 100 ? 1 : nil
        }
        #expect(evicted.isEmpty)
        #expect(try bounded.stats().totalBytes > bounded.configuration.maxSize ?? 0)
        let writer = try bounded.beginWrite(hints: CacheBodyHints())
        try writer.append([3])
        try writer.commit(CacheCoreFixtures.makeEntry(url: "https://e.example/second"))
        #expect(try bounded.stats().totalBytes <= bounded.configuration.maxSize ?? 0)
        #expect(bounded.evictedCount >= 100)
    }

    /// `count` entries (2 000 unless given) of 100 bytes bulk-loaded in index order (no usage rows), then a
    /// usage row for each that `lastUse` gives a time (from its index and the latest creation), then a store
    /// bounded to hold about a hundred fewer, and one more entry committed in it.
    /// - Returns: the indices of the entries evicted, the bounded store, and the directory of its file.
    private static func evictionOfAboutAHundredOf2000(
        count: Int = 2000, lastUse: (_ index: Int, _ created: Double) -> Double?
    ) throws -> (evicted: [Int], store: SQLiteCacheStore, directory: StorageTestDirectory) {
        let loader = try StorageTestHarness()
        let entries = (0..<count).map { CacheCoreFixtures.makeEntry(url: "https://e.example/\($0)") }
        try loader.store.bulkLoad(entries.lazy.map { ($0, [UInt8](repeating: 7, count: 100)) })
        #expect(try loader.count("SELECT count(*) FROM entry_access") == 0)
        let created = Double(try loader.count("SELECT max(created) FROM entry"))
        for (index, entry) in entries.enumerated() {
            guard let last = lastUse(index, created) else { continue }
            try loader.sql(
                "INSERT INTO entry_access (id, hit_count, last_access) VALUES (?, 1, ?)",
                [.integer(SQLiteCacheStore.rowID(entry.key)), .real(last)])
        }
        let total = try loader.store.stats().totalBytes
        let bounded = try SQLiteCacheStore(path: loader.directory.file(), maxSize: total - 100 * (total / count))
        let writer = try bounded.beginWrite(hints: CacheBodyHints())
        try writer.append([1])
        try writer.commit(CacheCoreFixtures.makeEntry(url: "https://e.example/new"))
        let evicted = try entries.indices.filter { try bounded.entry(for: entries[$0].key) == nil }
        return (evicted, bounded, loader.directory)
    }

    /// A hit written for an entry no longer stored leaves no usage row behind (`addHits`), and an entry's
    /// first written hit makes its row.
    @Test func hitsOfAnEntryNoLongerStoredMakeNoUsageRow() throws {
        let harness = try StorageTestHarness()
        let stored = try harness.put(CacheCoreFixtures.makeEntry(url: "https://e.example/kept"), [1])
        harness.store.recordHits(CacheCoreFixtures.makeEntry(url: "https://e.example/never").key, count: 3, at: .now)
        harness.store.recordHits(stored.key, count: 2, at: CacheCoreFixtures.epoch.addingTimeInterval(9))
        try harness.store.flushHits()
        #expect(try harness.count("SELECT count(*) FROM entry_access") == 1)
        #expect(
            try harness.count("SELECT hit_count FROM entry_access WHERE id = \(SQLiteCacheStore.rowID(stored.key))")
                == 2)
    }

    @Test func sweepDeletesOnlyEntriesPastTheirStaleAllowance() throws {
        let harness = try StorageTestHarness()
        let fresh = try harness.put(CacheCoreFixtures.makeEntry(url: "https://e.example/fresh", freshness: 1000), [1])
        let staleOK = try harness.put(
            CacheCoreFixtures.makeEntry(url: "https://e.example/stale", freshness: 10, staleAllowance: 500), [2])
        let gone = try harness.put(CacheCoreFixtures.makeEntry(url: "https://e.example/gone", freshness: 10), [3])
        #expect(try harness.store.sweep(now: CacheCoreFixtures.epoch.addingTimeInterval(100)) == 1)
        #expect(try harness.store.entry(for: gone.key) == nil)
        #expect(try harness.store.entry(for: staleOK.key) != nil)
        #expect(try harness.store.entry(for: fresh.key) != nil)
        #expect(try harness.store.sweep(now: CacheCoreFixtures.epoch.addingTimeInterval(600)) == 1)
        #expect(try harness.store.stats().entryCount == 1)
    }

    @Test func deleteRemovesTheEntryAndItsChunks() throws {
        let harness = try StorageTestHarness()
        let stored = try harness.put(CacheCoreFixtures.makeEntry(), CacheCoreFixtures.randomBody(length: 10_000))
        #expect(try harness.store.delete(stored.key))
        #expect(try harness.store.delete(stored.key) == false)
        #expect(try harness.count("SELECT count(*) FROM chunk") == 0)
        #expect(try harness.store.stats() == CacheStoreStats(entryCount: 0, totalBytes: 0, maxSize: nil))
    }
}

/// The stored header text (`name:value` lines) read back as the lookup reads it, from the column's bytes.
@Suite struct StoredHeaderTextTests {
    private static func decode(_ text: String) -> HTTPHeaders {
        Array(text.utf8).withUnsafeBytes { SQLiteCacheStore.decodeHeaders($0) }
    }

    @Test(arguments: [
        ("", []),
        ("A:1", [("A", "1")]),
        ("A:1\n", [("A", "1")]),
        ("A:1\nB:\nC:x: y:z", [("A", "1"), ("B", ""), ("C", "x: y:z")]),
        // A line without a colon is no field (the encoder never writes one); the lines around it are read.
        ("A:1\nno colon\n\nD:caf\u{E9}", [("A", "1"), ("D", "caf\u{E9}")]),
        (":empty name\nE:\u{1F600}", [("", "empty name"), ("E", "\u{1F600}")]),
    ])
    func linesSplitAtTheFirstColon(text: String, expected: [(String, String)]) {
        #expect(Self.decode(text) == HTTPHeaders(expected))
    }

    /// Short names and values (held inside the string) and long ones (on the heap), non-ASCII bytes, an
    /// empty value, and no fields at all.
    @Test func encodedHeadersAreOneNameColonValueLinePerFieldInOrder() {
        let long = String(repeating: "w", count: 40)
        let headers = HTTPHeaders([("A", "1"), ("X-\(long)", "caf\u{E9} \u{1F600}"), ("Empty", ""), ("b", long)])
        #expect(SQLiteCacheStore.encodeHeaders(headers) == "A:1\nX-\(long):caf\u{E9} \u{1F600}\nEmpty:\nb:\(long)")
        #expect(SQLiteCacheStore.encodeHeaders(HTTPHeaders()) == "")
        #expect(SQLiteCacheStore.encodeHeaders(HTTPHeaders([("Only", "one")])) == "Only:one")
    }

    @Test func encodedHeadersDecodeToThemselves() {
        let headers = HTTPHeaders([
            ("Content-Type", "text/plain; charset=utf-8"), ("ETag", "\"a:b\""), ("Set-Thing", "one"),
            ("set-thing", "two"), ("X-Long-Name-Over-Eight-Bytes", String(repeating: "v", count: 300)),
        ])
        let decoded = Self.decode(SQLiteCacheStore.encodeHeaders(headers))
        #expect(decoded == headers)
        #expect(decoded.values(for: "SET-THING") == ["one", "two"])
        #expect(decoded["x-long-name-over-eight-bytes"]?.count == 300)
    }
}

/// Connections read the store through one map of its file (Sources/CSQLiteVFS/mapped_database.c) unless
/// `memoryMapSize` is 0; SQLite's own map would be one a connection, undone at its first read after any
/// other connection's commit. What they read through it is what was written, however the file grows.
@Suite struct StoreSharedMapTests {
    @Test func everyConnectionReadsThroughTheSameMapAcrossCommits() throws {
        let harness = try StorageTestHarness()
        let database = harness.store.database
        let map = try #require(try database.read { $0.databaseMap })
        #expect(try database.write { $0.databaseMap } == map)
        // Readers also read the mapped pages in place: SQLite's fetching is on, at the length it may ask for.
        let limit = try database.read { try $0.queryFirst("PRAGMA mmap_size") { $0.int64(0) } }
        #expect(limit == Int64(SQLiteCacheStore.Configuration.defaultMemoryMapSize))
        for index in 0..<20 {
            let entry = CacheCoreFixtures.makeEntry(url: "https://example.com/\(index)")
            let body = CacheCoreFixtures.randomBody(length: 3000 * (index + 1), seed: UInt64(index))
            try harness.put(entry, body)
            // Two readers at once (the first is out of the pool while the second is taken), after a commit.
            let maps = try database.read { outer in
                try database.read { inner in [outer.databaseMap, inner.databaseMap] }
            }
            #expect(maps == [map, map], "after commit \(index)")
            #expect(try harness.read(try #require(try harness.store.entry(for: entry.key))) == body)
        }
    }

    /// The map is made from SQLite's own descriptor: closing a descriptor of its own would have dropped every
    /// POSIX lock the process holds on the file, and another process's `sqlite3` would then take the store
    /// for its own and, closing, remove the WAL under the server.
    @Test func anotherProcessStillSeesTheStoreInUse() throws {
        let harness = try StorageTestHarness()
        let entry = CacheCoreFixtures.makeEntry(url: "https://example.com/kept")
        let body = CacheCoreFixtures.randomBody(length: 50_000)
        try harness.put(entry, body)
        #expect(try harness.store.database.read { $0.databaseMap } != nil)
        let path = harness.directory.file()
        let shell = try runProcess(["sqlite3", path, "SELECT count(*) FROM entry"])
        #expect(shell.status == 0)
        #expect(String(decoding: shell.output, as: UTF8.self) == "1\n")
        // Still locked by this process, so the shell neither checkpointed nor removed the WAL on its close.
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        let later = CacheCoreFixtures.makeEntry(url: "https://example.com/later")
        try harness.put(later, body)
        #expect(try harness.read(try #require(try harness.store.entry(for: later.key))) == body)
        #expect(try harness.read(try #require(try harness.store.entry(for: entry.key))) == body)
    }

    @Test func withoutAMapEveryPageIsReadWithPread() throws {
        let directory = StorageTestDirectory()
        var configuration = SQLiteCacheStore.Configuration(path: directory.file())
        configuration.memoryMapSize = 0
        let store = try SQLiteCacheStore(configuration: configuration)
        #expect(try store.database.read { $0.databaseMap } == nil)
        #expect(try store.database.write { $0.databaseMap } == nil)
        #expect(try store.database.read { try $0.queryFirst("PRAGMA mmap_size") { $0.int64(0) } } == 0)
    }

    /// Entries of one chunk to many (each chunk its own overflow pages), checkpointed into the file in
    /// rounds so that it grows under a map made when it was small, read back after every round.
    @Test(arguments: [0, SQLiteCacheStore.Configuration.defaultMemoryMapSize])
    func everyEntryReadsBackWholeAsTheFileGrows(memoryMapSize: Int) throws {
        let directory = StorageTestDirectory()
        var configuration = SQLiteCacheStore.Configuration(path: directory.file(), chunkSize: 16 * 1024)
        configuration.memoryMapSize = memoryMapSize
        let store = try SQLiteCacheStore(configuration: configuration)
        var random = SplitMix64(seed: 11)
        var written: [(StoredEntry, [UInt8])] = []
        for round in 0..<4 {
            for index in 0..<12 {
                let entry = CacheCoreFixtures.makeEntry(url: "https://example.com/\(round)/\(index)")
                let length = Int(random.next() % 150_000) + 1
                let body = CacheCoreFixtures.randomBody(length: length, seed: random.next())
                let writer = try store.beginWrite(hints: CacheBodyHints(headers: entry.headers))
                try writer.append(body)
                written.append((try writer.commit(entry), body))
            }
            try store.checkpoint()
            for (entry, body) in written {
                let found = try #require(try store.entry(for: entry.key))
                let reader = try store.openBody(of: found, form: .identity)
                var read: [UInt8] = []
                while let piece = try reader.next() { read += piece }
                #expect(read == body, "\(entry.url) in round \(round)")
            }
        }
        #expect(try store.database.read { try $0.query("PRAGMA integrity_check") { $0.text(0) ?? "" } } == ["ok"])
    }
}
