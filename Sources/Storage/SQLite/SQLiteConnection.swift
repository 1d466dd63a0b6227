import CSQLite
import CSQLiteVFS

/// One connection to a database file (https://sqlite.org/c3ref/sqlite3.html) with its statement cache.
///
/// Not thread-safe by itself: `SQLiteDatabase` hands each connection to one thread at a time, under
/// its `Mutex` (the writer) or by taking it out of the reader pool, which is what makes the
/// `@unchecked Sendable` sound. Its statement caches skip the runtime's exclusivity check for the same reason:
/// one thread at a time, and a lookup calls nothing that could reach the cache again.
final class SQLiteConnection: @unchecked Sendable {
    private let handle: OpaquePointer
    @exclusivity(unchecked) private var statements: [String: SQLiteStatement] = [:]
    /// The statements of `SQLiteQuery` constants, found by the address of their text: no hashing or
    /// comparing of the SQL on the lookup path.
    @exclusivity(unchecked) private var queries: [UnsafeRawPointer: SQLiteStatement] = [:]
    /// The file path, for errors.
    let path: String
    /// What `onCommit(walPages:)` installed, kept alive as long as SQLite may call it.
    private var walHook: WALHook?

    /// Opens a connection.
    /// - Parameters:
    ///   - path: the database file.
    ///   - readOnly: open read-only (readers of a WAL database).
    ///   - busyTimeout: milliseconds to wait on a lock (https://sqlite.org/c3ref/busy_timeout.html).
    /// - Throws: `SQLiteError` when the file cannot be opened.
    init(path: String, readOnly: Bool, busyTimeout: Int32 = 5_000) throws {
        var database: OpaquePointer?
        // NOMUTEX: each connection is used by one thread at a time (see the type's comment).
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &database, flags, Self.processSetup.vfsName)
        guard code == SQLITE_OK, let database else {
            let message = database.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(database)
            throw SQLiteError(code: code, message: "\(message) opening \(path)")
        }
        handle = database
        self.path = path
        sqlite3_extended_result_codes(database, 1)
        sqlite3_busy_timeout(database, busyTimeout)
    }

    /// What the process sets up once, before its first connection initializes the library.
    struct ProcessSetup: Sendable {
        /// The VFS connections open through: Larder's (Sources/CSQLiteVFS), where a transaction's frames
        /// reach the WAL in one write and connections share one lasting map of the file; `nil` (the default
        /// VFS) should its registration ever fail.
        let vfsName: String?
        /// Whether SQLite counts its memory (`false` once the setting took: it is refused after the library
        /// initialized, which only an open elsewhere than here could have done).
        let keepsMemoryStatistics: Bool
    }

    /// Runs on the first open (every open of SQLite in the process reads it first). Memory statistics off:
    /// Larder reads none of them, and with them on each of SQLite's allocations and frees locks one
    /// process-wide mutex, about 2 % of a stored hit's or a miss's instructions (docs/ARCHITECTURE.md,
    /// "SQLite keeps no memory statistics").
    static let processSetup: ProcessSetup = {
        let statisticsOff = csqlite_config_memory_statistics(0) == SQLITE_OK
        return ProcessSetup(
            vfsName: larder_vfs_register() == SQLITE_OK ? CSQLITEVFS_NAME : nil,
            keepsMemoryStatistics: !statisticsOff)
    }()

    deinit {
        statements.removeAll()
        queries.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Calls `handler` on the committing thread after each commit of this connection, with the pages in the
    /// WAL (https://sqlite.org/c3ref/wal_hook.html). The hook replaces SQLite's automatic checkpoint, which
    /// is installed the same way; when `handler` returns `true` the connection checkpoints passively at once,
    /// as that one would.
    /// - Parameter handler: gets the log's length in pages; must return quickly.
    func onCommit(walPages handler: @escaping @Sendable (Int) -> Bool) {
        let hook = WALHook(handler)
        walHook = hook
        sqlite3_wal_hook(
            handle,
            { context, database, name, pages in
                guard let context else { return SQLITE_OK }
                if Unmanaged<WALHook>.fromOpaque(context).takeUnretainedValue().handler(Int(pages)) {
                    // A busy checkpointer elsewhere is not an error of the commit: the next one tries again.
                    _ = sqlite3_wal_checkpoint_v2(database, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                }
                return SQLITE_OK
            }, Unmanaged.passUnretained(hook).toOpaque())
    }

    /// Reads the database file through the process's one map of it from now on, made at the first request
    /// with `length` bytes (Sources/CSQLiteVFS/mapped_database.c): `xRead` copies from the map instead of
    /// calling `pread`, and after `PRAGMA mmap_size` SQLite reads pages in the map in place. Nothing
    /// changes when the map cannot be made, or without Larder's VFS.
    /// - Parameter length: bytes of the file to map, from its start (the file may grow into them).
    func mapDatabase(length: Int) {
        var size = Int64(length)
        // SQLITE_NOTFOUND without a file, or from a VFS that knows no such control: both mean no map.
        _ = sqlite3_file_control(handle, "main", SQLITE_FCNTL_MMAP_SIZE, &size)
    }

    /// The address of the map this connection reads its database file through, `nil` without one (tests).
    var databaseMap: Int? {
        var start: UnsafeMutableRawPointer?
        guard sqlite3_file_control(handle, "main", CSQLITEVFS_FCNTL_MAP, &start) == SQLITE_OK else { return nil }
        return start.map { Int(bitPattern: $0) }
    }

    /// The writes SQLite asked of this connection's WAL file since it was opened and those that reached the
    /// file (Sources/CSQLiteVFS/batched_wal.c); `nil` before the WAL is open or without Larder's VFS (tests).
    var walWrites: (requested: Int64, performed: Int64)? {
        var wal: UnsafeMutablePointer<sqlite3_file>?
        guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_JOURNAL_POINTER, &wal) == SQLITE_OK,
            let wal, let methods = wal.pointee.pMethods
        else { return nil }
        var counts: [Int64] = [0, 0]
        let code = counts.withUnsafeMutableBufferPointer {
            methods.pointee.xFileControl(wal, CSQLITEVFS_FCNTL_WAL_WRITES, $0.baseAddress)
        }
        return code == SQLITE_OK ? (counts[0], counts[1]) : nil
    }

    /// Runs SQL text of one or more statements with no parameters (https://sqlite.org/c3ref/exec.html).
    /// - Parameter sql: the statements.
    /// - Throws: `SQLiteError` on failure.
    func execute(_ sql: String) throws {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else {
            throw SQLiteError(
                code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)), sql: sql)
        }
    }

    /// The cached prepared statement for `sql`, reset and with bindings cleared.
    /// - Parameter sql: one statement.
    /// - Returns: the statement.
    /// - Throws: `SQLiteError` when it does not prepare.
    func statement(_ sql: String) throws -> SQLiteStatement {
        if let cached = statements[sql] {
            cached.rewind()
            return cached
        }
        let statement = try SQLiteStatement(database: handle, sql: sql)
        statements[sql] = statement
        return statement
    }

    /// Runs a statement that returns no rows.
    /// - Parameters:
    ///   - sql: the statement.
    ///   - values: its parameters.
    /// - Returns: the rows changed (https://sqlite.org/c3ref/changes.html).
    /// - Throws: `SQLiteError` on failure.
    /// The prepared statement of a query constant, reset for a new run.
    /// - Parameter query: the query.
    /// - Returns: the statement, prepared on first use and kept for the connection's life.
    /// - Throws: `SQLiteError` when the SQL does not compile.
    func statement(_ query: SQLiteQuery) throws -> SQLiteStatement {
        let address = UnsafeRawPointer(query.sql.utf8Start)
        if let cached = queries[address] {
            cached.rewind()
            return cached
        }
        let statement = try SQLiteStatement(database: handle, sql: query.sql.description)
        queries[address] = statement
        return statement
    }

    /// Whether `query` has been prepared on this connection (tests: which statements a read ran).
    /// - Parameter query: the query constant.
    /// - Returns: `true` once the connection has run it.
    func hasPrepared(_ query: SQLiteQuery) -> Bool { queries[UnsafeRawPointer(query.sql.utf8Start)] != nil }

    /// Runs a statement constant to its end.
    /// - Parameters:
    ///   - query: the statement.
    ///   - values: the parameters.
    /// - Returns: the rows it changed.
    /// - Throws: `SQLiteError`.
    @discardableResult
    func run(_ query: SQLiteQuery, _ values: [SQLiteValue]) throws -> Int {
        let statement = try statement(query)
        defer { statement.reset() }
        try statement.bind(values)
        while try statement.step() {}
        return Int(sqlite3_changes64(handle))
    }

    /// Runs a statement constant to its end with a blob that SQLite reads in place as its last parameter,
    /// after `values`: a chunk's bytes are not copied once more before SQLite builds the row.
    /// - Parameters:
    ///   - query: the statement.
    ///   - values: the parameters before the blob.
    ///   - blob: the last parameter's bytes, read only until this returns (the reset unbinds them).
    /// - Returns: the rows it changed.
    /// - Throws: `SQLiteError`.
    @discardableResult
    func run(_ query: SQLiteQuery, _ values: [SQLiteValue], borrowing blob: UnsafeRawBufferPointer) throws -> Int {
        let statement = try statement(query)
        defer { statement.reset() }
        try statement.bind(values)
        try statement.bindBorrowed(blob, at: Int32(values.count + 1))
        while try statement.step() {}
        return Int(sqlite3_changes64(handle))
    }

    /// Runs a query constant and reads its first row, if any.
    /// - Parameters:
    ///   - query: the query.
    ///   - values: the parameters.
    ///   - row: reads the row; the statement's columns are valid only inside it.
    /// - Returns: what `row` returns, or `nil` when there is no row.
    /// - Throws: `SQLiteError`, or what `row` throws.
    func queryFirst<T>(_ query: SQLiteQuery, _ values: [SQLiteValue], row: (SQLiteStatement) throws -> T) throws -> T? {
        let statement = try statement(query)
        defer { statement.reset() }
        try statement.bind(values)
        return try statement.step() ? row(statement) : nil
    }

    /// Runs a query constant and hands each row to `row` while it returns `true`.
    /// - Parameters:
    ///   - query: the query.
    ///   - values: the parameters.
    ///   - row: reads one row (its columns are valid only inside it); `false` stops.
    /// - Throws: `SQLiteError`, or what `row` throws.
    func forEachRow(_ query: SQLiteQuery, _ values: [SQLiteValue], row: (SQLiteStatement) throws -> Bool) throws {
        let statement = try statement(query)
        defer { statement.reset() }
        try statement.bind(values)
        while try statement.step() {
            guard try row(statement) else { return }
        }
    }

    @discardableResult
    func run(_ sql: String, _ values: [SQLiteValue] = []) throws -> Int {
        let statement = try statement(sql)
        defer { statement.reset() }
        try statement.bind(values)
        while try statement.step() {}
        return Int(sqlite3_changes64(handle))
    }

    /// Runs a query and maps each row.
    /// - Parameters:
    ///   - sql: the query.
    ///   - values: its parameters.
    ///   - row: reads one row from the statement positioned on it.
    /// - Returns: the mapped rows.
    /// - Throws: `SQLiteError` or what `row` throws.
    func query<T>(_ sql: String, _ values: [SQLiteValue] = [], row: (SQLiteStatement) throws -> T) throws -> [T] {
        let statement = try statement(sql)
        defer { statement.reset() }
        try statement.bind(values)
        var rows: [T] = []
        while try statement.step() { rows.append(try row(statement)) }
        return rows
    }

    /// Runs a query and maps its first row.
    func queryFirst<T>(_ sql: String, _ values: [SQLiteValue] = [], row: (SQLiteStatement) throws -> T) throws -> T? {
        let statement = try statement(sql)
        defer { statement.reset() }
        try statement.bind(values)
        return try statement.step() ? row(statement) : nil
    }

    /// The rowid of the last insert (https://sqlite.org/c3ref/last_insert_rowid.html).
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// `PRAGMA user_version` (https://sqlite.org/pragma.html#pragma_user_version).
    var userVersion: Int {
        get throws { try queryFirst("PRAGMA user_version") { $0.int(0) } ?? 0 }
    }

    /// How a transaction body ends.
    enum TransactionCompletion {
        case commit
        case rollback
    }

    /// Runs `body` in a transaction: `BEGIN IMMEDIATE` takes the write lock up front so that the
    /// transaction never fails half-way on a lock upgrade (https://sqlite.org/lang_transaction.html).
    /// A thrown error rolls back and is rethrown.
    /// - Parameter body: the work; returns `.commit` or `.rollback`.
    /// - Throws: `SQLiteError` or what `body` throws.
    func inTransaction(_ body: () throws -> TransactionCompletion) throws {
        // BEGIN and COMMIT go through the statement cache: prepared once, not parsed per transaction.
        _ = try run("BEGIN IMMEDIATE")
        let completion: TransactionCompletion
        do {
            completion = try body()
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
        switch completion {
        case .commit:
            do { _ = try run("COMMIT") } catch {
                try? execute("ROLLBACK")
                throw error
            }
        case .rollback: try execute("ROLLBACK")
        }
    }
}

/// The closure behind a connection's WAL hook (`SQLiteConnection.onCommit(walPages:)`).
private final class WALHook: Sendable {
    let handler: @Sendable (Int) -> Bool
    init(_ handler: @escaping @Sendable (Int) -> Bool) { self.handler = handler }
}
