import CacheCore
import Foundation
import TestSupport
import Testing

@testable import Storage

@Suite struct StorageSchemaTests {
    @Test func newDatabaseIsMigratedFromVersionZero() throws {
        let directory = StorageTestDirectory()
        do {
            let connection = try SQLiteConnection(path: directory.file(), readOnly: false)
            #expect(try connection.userVersion == 0)
        }
        let store = try SQLiteCacheStore(path: directory.file())
        let version = try store.database.read { try $0.userVersion }
        #expect(version == StorageSchema.currentVersion)
        let journal = try store.database.read { try $0.queryFirst("PRAGMA journal_mode") { $0.text(0) } }
        #expect(journal == "wal")
    }

    @Test func versionOneDatabaseIsMigratedForwardKeepingItsEntries() throws {
        let directory = StorageTestDirectory()
        do {
            let connection = try SQLiteConnection(path: directory.file(), readOnly: false)
            try StorageSchema.migrate(connection, to: 1)
            #expect(try connection.userVersion == 1)
            let index = try connection.queryFirst("SELECT count(*) FROM sqlite_master WHERE name = 'entry_media'") {
                $0.int(0)
            }
            #expect(index == 0)
            try connection.run(
                "INSERT INTO filter_chain (id, version) VALUES (1, 5) ON CONFLICT(id) DO UPDATE SET version = 5")
        }
        let store = try SQLiteCacheStore(path: directory.file())
        #expect(try store.loadFilterChain().version == 5)
        let index = try store.database.read {
            try $0.queryFirst("SELECT count(*) FROM sqlite_master WHERE name = 'entry_media'") { $0.int(0) }
        }
        #expect(index == 1)
        #expect(try store.database.read { try $0.userVersion } == StorageSchema.currentVersion)
    }

    @Test func versionTwoDatabaseGainsTheDeclaredContentTypeAndKeepsItsEntries() throws {
        let directory = StorageTestDirectory()
        let old = CacheCoreFixtures.makeEntry(url: "https://old.example/a.png", contentType: "image/png")
        do {
            // A version-2 file with one entry, written as a version-2 Larder wrote it (no new column).
            let connection = try SQLiteConnection(path: directory.file(), readOnly: false)
            try StorageSchema.migrate(connection, to: 2)
            try connection.run(
                """
                INSERT INTO entry (id, seq, key, url, host, media_type, status, reason, headers, vary, request_time,
                    response_time, date, age_received, freshness, stale_allowance, sweep_after, filter_name,
                    image_format, original_size, stored_size, codec, crc32, chunk_size, hit_count, last_access,
                    created, body_id, footprint)
                VALUES (?, 1, ?, ?, 'old.example', 'image/png', 200, 'OK', 'Content-Type:image/png', '', 0, 0,
                    NULL, 0, 60, 0, 60, 'images', 'png', 0, 0, 0, 0, 65536, 0, 0, 0, 1, 300)
                """, [.integer(SQLiteCacheStore.rowID(old.key)), .blob(old.key.bytes), .text(old.url)])
        }
        let store = try SQLiteCacheStore(path: directory.file())
        #expect(try store.database.read { try $0.userVersion } == StorageSchema.currentVersion)
        let migrated = try #require(try store.entry(for: old.key))
        #expect(migrated.contentType == "image/png")
        #expect(migrated.declaredContentType == nil)
        #expect(migrated.originContentType == "image/png")
        #expect(migrated.imageFormat == "png")

        var retyped = CacheCoreFixtures.makeEntry(url: "https://new.example/b", contentType: "image/png")
        retyped.declaredContentType = "image/jpeg"
        let writer = try store.beginWrite(hints: CacheBodyHints(contentType: "image/png"))
        try writer.append([1, 2, 3])
        try writer.commit(retyped)
        let read = try #require(try store.entry(for: retyped.key))
        #expect(read.contentType == "image/png")
        #expect(read.declaredContentType == "image/jpeg")
        #expect(read.originContentType == "image/jpeg")
    }

    @Test func databaseFromANewerVersionIsRefusedAndLeftAlone() throws {
        let directory = StorageTestDirectory()
        do {
            let connection = try SQLiteConnection(path: directory.file(), readOnly: false)
            try connection.execute("CREATE TABLE future (x); PRAGMA user_version = 99")
        }
        #expect(throws: CacheStoreError.unsupportedSchema(found: 99, supported: StorageSchema.currentVersion)) {
            _ = try SQLiteCacheStore(path: directory.file())
        }
        let connection = try SQLiteConnection(path: directory.file(), readOnly: true)
        #expect(try connection.userVersion == 99)
    }

    @Test func sqliteErrorsCarryCodeMessageAndSQLButNoValues() throws {
        let directory = StorageTestDirectory()
        let connection = try SQLiteConnection(path: directory.file(), readOnly: false)
        #expect {
            try connection.run("INSERT INTO missing VALUES (?)", [.text("secret-value")])
        } throws: { error in
            guard let error = error as? SQLiteError else { return false }
            return error.primaryCode == 1 && error.sql == "INSERT INTO missing VALUES (?)"
                && error.message.contains("missing") && !error.description.contains("secret-value")
        }
    }
}

@Suite struct StorageSchemaTagsMigrationTests {
    @Test func versionThreeDatabaseWithEntriesGainsTagsAndKeepsItsEntries() throws {
        let directory = StorageTestDirectory()
        let old = CacheCoreFixtures.makeEntry(url: "https://old.example/a.txt")
        do {
            // A version-3 file with one entry, as a version-3 Larder wrote it (no tag or stale columns).
            let connection = try SQLiteConnection(path: directory.file(), readOnly: false)
            try StorageSchema.migrate(connection, to: 3)
            try Self.insertAsOlderVersions(old, into: connection)
        }
        let store = try SQLiteCacheStore(path: directory.file())
        #expect(try store.database.read { try $0.userVersion } == StorageSchema.currentVersion)
        let migrated = try #require(try store.entry(for: old.key))
        #expect(migrated.tags.isEmpty)
        #expect(migrated.staleSince == nil)
        #expect(try store.purge(.tags(["any"])) == 0)
        #expect(try store.purge(.url(old.url), soft: true) == 1)
        #expect(try store.entry(for: old.key)?.staleSince != nil)
        var tagged = CacheCoreFixtures.makeEntry(url: "https://new.example/b")
        tagged.tags = ["fresh-tag"]
        let writer = try store.beginWrite(hints: CacheBodyHints())
        try writer.append([1])
        try writer.commit(tagged)
        #expect(try store.purge(.tags(["fresh-tag"])) == 1)
        #expect(try store.purge(.all) == 1)
    }

    @Test func versionFourDatabaseKeepsItsCountsWhenInsertsCountThemselves() throws {
        let directory = StorageTestDirectory()
        let old = CacheCoreFixtures.makeEntry(url: "https://old.example/a.txt")
        do {
            // A version-4 file with one entry, counted in `stats` by the insert trigger version 5 drops.
            let connection = try SQLiteConnection(path: directory.file(), readOnly: false)
            try StorageSchema.migrate(connection, to: 4)
            try Self.insertAsOlderVersions(old, into: connection)
        }
        let store = try SQLiteCacheStore(path: directory.file())
        #expect(try store.stats() == CacheStoreStats(entryCount: 1, totalBytes: 300, maxSize: nil))
        let triggers = try store.database.read {
            try $0.query("SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name") { $0.text(0) ?? "" }
        }
        #expect(triggers == ["entry_deleted", "entry_reclaimed", "entry_resized", "entry_untagged"])
        // New entries count themselves, replacing one counts it once, and deleting it takes it off again.
        var footprints = 300
        for body in [[UInt8](repeating: 1, count: 500), [UInt8](repeating: 2, count: 700)] {
            let writer = try store.beginWrite(hints: CacheBodyHints())
            try writer.append(body)
            let stored = try writer.commit(CacheCoreFixtures.makeEntry(url: "https://new.example/b"))
            footprints =
                300
                + (try store.database.read {
                    try $0.queryFirst(
                        "SELECT footprint FROM entry WHERE id = ?", [.integer(SQLiteCacheStore.rowID(stored.key))]
                    ) { $0.int(0) }
                } ?? 0)
            #expect(try store.stats() == CacheStoreStats(entryCount: 2, totalBytes: footprints, maxSize: nil))
        }
        #expect(try store.delete(old.key))
        #expect(try store.stats() == CacheStoreStats(entryCount: 1, totalBytes: footprints - 300, maxSize: nil))
    }

    @Test func versionFiveDatabaseWithEntriesGainsPurgeRecordsAndKeepsItsEntries() throws {
        let directory = StorageTestDirectory()
        let old = CacheCoreFixtures.makeEntry(url: "https://old.example/a.txt")
        let other = CacheCoreFixtures.makeEntry(url: "https://old.example/b.txt")
        do {
            // A version-5 file with two entries, counted by the insert as version 5 counts them.
            let connection = try SQLiteConnection(path: directory.file(), readOnly: false)
            try StorageSchema.migrate(connection, to: 5)
            for entry in [old, other] {
                try Self.insertAsOlderVersions(entry, into: connection)
                try connection.run("UPDATE stats SET entry_count = entry_count + 1, total_bytes = total_bytes + 300")
            }
            try connection.run("UPDATE entry SET seq = rowid")
        }
        let store = try SQLiteCacheStore(path: directory.file())
        #expect(try store.database.read { try $0.userVersion } == StorageSchema.currentVersion)
        #expect(try store.stats() == CacheStoreStats(entryCount: 2, totalBytes: 600, maxSize: nil))
        #expect(try store.entry(for: old.key) != nil)
        // The reclaimer held, so that the purged entry is seen before it is reclaimed.
        let hold = SQLiteCacheStoreReclaimTests.ReclaimerHold(store)
        #expect(try store.purge(.url(old.url)) == 1)
        #expect(try store.entry(for: old.key) == nil)
        #expect(
            try store.stats()
                == CacheStoreStats(
                    entryCount: 1, totalBytes: 600, maxSize: nil, reclaimingEntries: 1, reclaimingBytes: 300))
        hold.release()
        try store.reclaimPurged()
        #expect(try store.stats() == CacheStoreStats(entryCount: 1, totalBytes: 300, maxSize: nil))
        #expect(try store.entry(for: other.key) != nil)
    }

    @Test func versionSixDatabaseMovesItsHitsToUsageRowsAndItsHandSparesTheHitEntriesOnce() throws {
        let directory = StorageTestDirectory()
        let entries = (0..<3).map { CacheCoreFixtures.makeEntry(url: "https://old.example/\($0).txt") }
        // The first two were hit, the third never (version 7 gave it a usage row without hits).
        let usage: [(hits: Int, last: Double)] = [(7, 300), (2, 100), (0, 200)]
        do {
            // A version-6 file whose hits and last accesses are in the entry rows, as version 6 wrote them.
            let connection = try SQLiteConnection(path: directory.file(), readOnly: false)
            try StorageSchema.migrate(connection, to: 6)
            for (entry, use) in zip(entries, usage) {
                try Self.insertAsOlderVersions(entry, into: connection)
                try connection.run(
                    "UPDATE entry SET hit_count = ?, last_access = ? WHERE id = ?",
                    [.int(use.hits), .real(use.last), .integer(SQLiteCacheStore.rowID(entry.key))])
                try connection.run("UPDATE stats SET entry_count = entry_count + 1, total_bytes = total_bytes + 300")
            }
            for (index, entry) in entries.enumerated() {
                try connection.run(
                    "UPDATE entry SET seq = ? WHERE id = ?",
                    [.int(index + 1), .integer(SQLiteCacheStore.rowID(entry.key))])
            }
        }
        // Bounded to two of the three: opening it and storing nothing evicts nothing yet.
        let store = try SQLiteCacheStore(path: directory.file(), maxSize: 700)
        #expect(try store.database.read { try $0.userVersion } == StorageSchema.currentVersion)
        for (entry, use) in zip(entries, usage) {
            let migrated = try #require(try store.entry(for: entry.key))
            #expect(migrated.hitCount == use.hits)
            #expect(migrated.lastAccess == Date(timeIntervalSince1970: use.last))
        }
        #expect(try store.database.read { try $0.queryFirst("SELECT count(*) FROM entry_access") { $0.int(0) } } == 3)
        // A new entry over the bound evicts two. The hand's first lap (version 8) spares every entry ever hit
        // and takes the one never hit; the next spares what was used since the migration, which the oldest
        // was not.
        let writer = try store.beginWrite(hints: CacheBodyHints())
        try writer.append([1, 2, 3])
        let newest = try writer.commit(CacheCoreFixtures.makeEntry(url: "https://new.example/n.txt"))
        #expect(try store.entry(for: entries[2].key) == nil)
        #expect(try store.entry(for: entries[0].key) == nil)
        #expect(try store.entry(for: entries[1].key)?.hitCount == 2)
        #expect(try store.entry(for: newest.key) != nil)
        // Evicted entries took their usage rows with them; the new entry has none until it is hit.
        #expect(try store.database.read { try $0.queryFirst("SELECT count(*) FROM entry_access") { $0.int(0) } } == 1)
    }

    /// Inserts an entry row with the columns versions 3 and 4 have in common, footprint 300, as they wrote it.
    @Test func versionEightDatabaseKeepsItsCountsRightThroughDeletesPurgesAndResizes() throws {
        let directory = StorageTestDirectory()
        let entries = (0..<3).map { CacheCoreFixtures.makeEntry(url: "https://old.example/\($0).txt") }
        do {
            let connection = try SQLiteConnection(path: directory.file(), readOnly: false)
            try StorageSchema.migrate(connection, to: 8)
            for (index, entry) in entries.enumerated() {
                try Self.insertAsOlderVersions(entry, into: connection)
                try connection.run(
                    "UPDATE entry SET seq = ?, body_id = ? WHERE id = ?",
                    [.int(index + 1), .int(index + 1), .integer(SQLiteCacheStore.rowID(entry.key))])
                try connection.run(
                    "INSERT INTO chunk (id, crc32, data) VALUES (?, 0, x'00')",
                    [.integer(Int64(index + 1) << StorageSchema.chunkIDShift)])
                try connection.run("UPDATE stats SET entry_count = entry_count + 1, total_bytes = total_bytes + 300")
            }
        }
        let store = try SQLiteCacheStore(path: directory.file())
        #expect(try store.database.read { try $0.userVersion } == StorageSchema.currentVersion)
        // The rewritten triggers still do all their work: a resize, a delete with its body, a purge reclaimed.
        try store.database.write {
            _ = try $0.run(
                "UPDATE entry SET footprint = 500 WHERE id = ?", [.integer(SQLiteCacheStore.rowID(entries[0].key))])
        }
        #expect(try store.stats() == CacheStoreStats(entryCount: 3, totalBytes: 1100, maxSize: nil))
        #expect(try store.delete(entries[1].key))
        #expect(try store.stats() == CacheStoreStats(entryCount: 2, totalBytes: 800, maxSize: nil))
        let hold = SQLiteCacheStoreReclaimTests.ReclaimerHold(store)
        #expect(try store.purge(.url(entries[2].url)) == 1)
        hold.release()
        try store.reclaimPurged()
        #expect(try store.stats() == CacheStoreStats(entryCount: 1, totalBytes: 500, maxSize: nil))
        let chunks = try store.database.read { try $0.query("SELECT id >> 24 FROM chunk") { $0.int(0) } }
        #expect(chunks == [1])
    }

    /// SQLite keeps a statement journal for a statement that writes more than one b-tree and may abort
    /// halfway; a delete of an entry writes several through its triggers, so none of their writes may be
    /// one that can abort (a constraint checked without `OR IGNORE`). Reintroducing one would cost every
    /// eviction a copy of each page it changes.
    @Test func theTriggersOnEntriesWriteNothingThatCanAbort() throws {
        let directory = StorageTestDirectory()
        let store = try SQLiteCacheStore(path: directory.file())
        let triggers = try store.database.read {
            try $0.query("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'entry'") {
                ($0.text(0) ?? "", ($0.text(1) ?? "").uppercased())
            }
        }
        #expect(Set(triggers.map(\.0)) == ["entry_deleted", "entry_untagged", "entry_reclaimed", "entry_resized"])
        for (name, sql) in triggers {
            let updates = sql.components(separatedBy: "UPDATE ").dropFirst().filter { !$0.hasPrefix("OF ") }
            #expect(updates.allSatisfy { $0.hasPrefix("OR IGNORE ") }, "trigger \(name)")
            #expect(!sql.contains("INSERT "), "trigger \(name)")
        }
    }

    /// Deleted content is not overwritten (Debian builds SQLite with `SQLITE_SECURE_DELETE`): an eviction
    /// frees its body's overflow pages without writing them to the WAL.
    @Test func theWriterDoesNotOverwriteDeletedContent() throws {
        let directory = StorageTestDirectory()
        let store = try SQLiteCacheStore(path: directory.file())
        #expect(try store.database.write { try $0.queryFirst("PRAGMA secure_delete") { $0.int(0) } } == 0)
    }

    private static func insertAsOlderVersions(_ entry: StoredEntry, into connection: SQLiteConnection) throws {
        try connection.run(
            """
            INSERT INTO entry (id, seq, key, url, host, media_type, status, reason, headers, vary, request_time,
                response_time, date, age_received, freshness, stale_allowance, sweep_after, filter_name,
                image_format, original_size, stored_size, codec, crc32, chunk_size, hit_count, last_access,
                created, body_id, footprint, declared_content_type)
            VALUES (?, 1, ?, ?, 'old.example', 'text/plain', 200, 'OK', 'Content-Type:text/plain', '', 0, 0,
                NULL, 0, 60, 0, 60, NULL, NULL, 0, 0, 0, 0, 65536, 0, 0, 0, 1, 300, NULL)
            """, [.integer(SQLiteCacheStore.rowID(entry.key)), .blob(entry.key.bytes), .text(entry.url)])
    }
}
