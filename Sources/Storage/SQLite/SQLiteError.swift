import CSQLite

/// A failed SQLite call: the result code, SQLite's message and the SQL text (never bound values, which
/// may hold URLs or headers that do not belong in logs). See https://sqlite.org/rescode.html.
struct SQLiteError: Error, CustomStringConvertible {
    /// The extended result code.
    let code: Int32
    /// `sqlite3_errmsg` at the time of failure, or a description of the misuse.
    let message: String
    /// The statement being run, when there was one.
    let sql: String?

    init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    var description: String {
        "SQLite error \(code): \(message)" + (sql.map { " (SQL: \($0))" } ?? "")
    }

    /// The primary result code (the low byte of the extended one).
    var primaryCode: Int32 { code & 0xFF }

    /// Whether a row's primary key (a rowid) was taken: `SQLITE_CONSTRAINT_PRIMARYKEY`, whose C macro
    /// Swift does not import.
    var isPrimaryKeyConflict: Bool { code == SQLITE_CONSTRAINT | 6 << 8 }
}
