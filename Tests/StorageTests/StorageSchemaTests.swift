import CacheCore
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
        #expect(try store.database.read { try $0.userVersion } == 2)
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
