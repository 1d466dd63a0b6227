import CSQLite
import TestSupport
import Testing

@testable import Storage

/// What the process sets up once before its first SQLite open (`SQLiteConnection.processSetup`).
@Suite struct SQLiteProcessSetupTests {
    /// SQLite counts no memory: the setting took (SQLite refuses it once the library is initialized, so an
    /// open that went around the setup would show here), and a connection that wrote and read leaves the
    /// count at zero, where with statistics on it holds every byte SQLite has allocated.
    @Test func sqliteKeepsNoMemoryStatistics() throws {
        let directory = StorageTestDirectory()
        let connection = try SQLiteConnection(path: directory.file(), readOnly: false)
        try connection.execute("CREATE TABLE t (x TEXT)")
        _ = try connection.run("INSERT INTO t VALUES (?)", [.text(String(repeating: "x", count: 10_000))])
        let read = try connection.queryFirst("SELECT length(x) FROM t") { row in row.int(0) }
        #expect(read == 10_000)
        #expect(!SQLiteConnection.processSetup.keepsMemoryStatistics)
        #expect(sqlite3_memory_used() == 0)
    }
}
