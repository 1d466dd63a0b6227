import CSQLite

/// A prepared statement, finalized when released (https://sqlite.org/c3ref/stmt.html).
///
/// Used only by the connection that prepared it, under that connection's lock.
final class SQLiteStatement {
    private let handle: OpaquePointer
    private let database: OpaquePointer
    /// The SQL text, for errors.
    let sql: String

    init(database: OpaquePointer, sql: String) throws {
        var statement: OpaquePointer?
        // https://sqlite.org/c3ref/prepare.html: PERSISTENT because these are cached for the connection's life.
        let code = sqlite3_prepare_v3(database, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw SQLiteError(code: code, message: String(cString: sqlite3_errmsg(database)), sql: sql)
        }
        self.handle = statement
        self.database = database
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// Clears the previous run's state and bindings (https://sqlite.org/c3ref/reset.html): every run
    /// ends with it, which lets go of the text and blobs bound.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Back to the start for a new run, bindings as they are: a run binds all of its own (`bind`), and
    /// the one before cleared its own at its end (`reset`). Clearing again was about 800 instructions a
    /// statement, some 3 000 a stored miss (callgrind).
    func rewind() {
        sqlite3_reset(handle)
    }

    /// Binds values to `?` parameters 1, 2, … in order (https://sqlite.org/c3ref/bind_blob.html).
    /// - Parameter values: the values.
    /// - Throws: `SQLiteError` when SQLite refuses one.
    func bind(_ values: [SQLiteValue]) throws {
        // Parameters the values do not reach are NULL, whatever a run before bound (`rewind`).
        if values.count < Int(sqlite3_bind_parameter_count(handle)) { sqlite3_clear_bindings(handle) }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .null: code = sqlite3_bind_null(handle, index)
            case .integer(let integer): code = sqlite3_bind_int64(handle, index, integer)
            case .real(let real): code = sqlite3_bind_double(handle, index, real)
            case .text(let text):
                code =
                    text.utf8.withContiguousStorageIfAvailable { buffer in
                        buffer.withMemoryRebound(to: CChar.self) {
                            csqlite_bind_text_transient(handle, index, $0.baseAddress, Int32($0.count))
                        }
                    } ?? csqlite_bind_text_transient(handle, index, text, -1)
            case .blob(let bytes):
                // An empty buffer may have no base address, and a NULL pointer would bind SQL NULL.
                code =
                    bytes.isEmpty
                    ? sqlite3_bind_zeroblob(handle, index, 0)
                    : bytes.withUnsafeBytes {
                        csqlite_bind_blob_transient(handle, index, $0.baseAddress, Int32($0.count))
                    }
            }
            guard code == SQLITE_OK else { throw error(code) }
        }
    }

    /// Binds `bytes` to parameter `index` as a blob SQLite reads where it is, not a copy (a null destructor
    /// is SQLITE_STATIC): the caller keeps the bytes alive and unchanged until `reset` lets go of them.
    /// - Throws: `SQLiteError` when SQLite refuses it.
    func bindBorrowed(_ bytes: UnsafeRawBufferPointer, at index: Int32) throws {
        // An empty buffer may have no base address, and a NULL pointer would bind SQL NULL.
        let code =
            bytes.isEmpty
            ? sqlite3_bind_zeroblob(handle, index, 0)
            : sqlite3_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count), nil)
        guard code == SQLITE_OK else { throw error(code) }
    }

    /// Runs one step (https://sqlite.org/c3ref/step.html).
    /// - Returns: `true` when a row is available, `false` when done.
    /// - Throws: `SQLiteError` on failure.
    func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code: throw error(code)
        }
    }

    /// Whether column `index` is NULL.
    func isNull(_ index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_NULL }
    /// Column `index` as an integer.
    func int64(_ index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }
    /// Column `index` as an Int.
    func int(_ index: Int32) -> Int { Int(sqlite3_column_int64(handle, index)) }
    /// Column `index` as a double.
    func double(_ index: Int32) -> Double { sqlite3_column_double(handle, index) }
    /// Column `index` as text, `nil` when NULL.
    func text(_ index: Int32) -> String? {
        guard let pointer = sqlite3_column_text(handle, index) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// Lends column `index`'s bytes (a blob, or text as UTF-8) without copying them; valid only inside
    /// `body`. Empty when NULL or empty.
    func withBlob<Result>(_ index: Int32, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        let pointer = sqlite3_column_blob(handle, index)
        let count = pointer == nil ? 0 : Int(sqlite3_column_bytes(handle, index))
        return try body(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// Column `index` as bytes (empty when NULL or empty).
    func blob(_ index: Int32) -> [UInt8] {
        guard let pointer = sqlite3_column_blob(handle, index) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, index))
        // From typed bytes: an array made from raw bytes copies them one at a time, not with memcpy.
        return Array(UnsafeBufferPointer(start: pointer.assumingMemoryBound(to: UInt8.self), count: count))
    }

    private func error(_ code: Int32) -> SQLiteError {
        SQLiteError(
            code: sqlite3_extended_errcode(database), message: String(cString: sqlite3_errmsg(database)), sql: sql)
    }
}

/// A value bound to a statement parameter.
enum SQLiteValue {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    static func int(_ value: Int) -> SQLiteValue { .integer(Int64(value)) }
    static func optionalText(_ value: String?) -> SQLiteValue { value.map(SQLiteValue.text) ?? .null }
}
