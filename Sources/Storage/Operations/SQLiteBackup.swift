import CSQLite
import CacheCore
import Glibc

/// An online, consistent copy of a cache database while a server writes to it, with SQLite's backup
/// API (https://sqlite.org/backup.html), and the integrity check that proves a copy.
///
/// The copy is taken a few pages per step so that progress can be shown, inside one read
/// transaction on the source: in WAL mode that pins one snapshot, so writers go on and the steps
/// never restart. It is written to `<destination>.partial` and renamed into place when complete,
/// so a destination path never holds half a backup.
public enum SQLiteBackup {
    /// How far a backup has come.
    public struct Progress: Sendable, Equatable {
        /// Pages copied so far.
        public let copiedPages: Int
        /// Pages in the snapshot being copied.
        public let totalPages: Int
    }

    /// Copies the database at `source` to `destination`.
    /// - Parameters:
    ///   - source: the live database file (opened read-only).
    ///   - destination: the backup file; an existing one is replaced only when `overwrite` is true.
    ///   - overwrite: replace an existing destination (and drop a stale `-wal`/`-shm` beside it).
    ///   - pagesPerStep: pages copied between progress reports (https://sqlite.org/c3ref/backup_finish.html).
    ///   - verify: run `PRAGMA integrity_check` on the copy before it is renamed into place.
    ///   - progress: called after each step.
    /// - Returns: the pages copied.
    /// - Throws: `CacheStoreError.storageFailure` naming the step that failed, or the problems
    ///   `integrity_check` found in the copy (which is then deleted).
    @discardableResult
    public static func copy(
        from source: String, to destination: String, overwrite: Bool = false, pagesPerStep: Int32 = 256,
        verify: Bool = true, progress: (Progress) -> Void = { _ in }
    ) throws -> Int {
        if !overwrite, access(destination, F_OK) == 0 {
            throw CacheStoreError.storageFailure(
                operation: "backup to \(destination)", detail: "the file exists (use --force to replace it)")
        }
        let partial = destination + ".partial"
        unlink(partial)
        let pages: Int
        do {
            let from = try RawDatabase(path: source, flags: SQLITE_OPEN_READONLY)
            // A read transaction held across the steps: the backup uses it instead of taking and
            // dropping a lock per step, so every step reads the same WAL snapshot.
            try from.execute("BEGIN; SELECT count(*) FROM sqlite_schema;")
            defer { try? from.execute("COMMIT") }
            let to = try RawDatabase(path: partial, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
            pages = try step(from: from, to: to, pagesPerStep: pagesPerStep, progress: progress)
        } catch {
            unlink(partial)
            throw error
        }
        do {
            if verify { try check(partial) }
        } catch {
            unlink(partial)
            throw error
        }
        if overwrite {
            // A WAL left from an earlier database at this path would be replayed over the new file.
            unlink(destination + "-wal")
            unlink(destination + "-shm")
        }
        guard rename(partial, destination) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(partial)
            throw CacheStoreError.storageFailure(operation: "backup rename to \(destination)", detail: reason)
        }
        return pages
    }

    /// Runs the backup object to completion, retrying while the source is busy.
    private static func step(
        from: RawDatabase, to: RawDatabase, pagesPerStep: Int32, progress: (Progress) -> Void
    ) throws -> Int {
        guard let backup = sqlite3_backup_init(to.handle, "main", from.handle, "main") else {
            throw to.failure("backup init")
        }
        var code: Int32
        repeat {
            code = sqlite3_backup_step(backup, pagesPerStep)
            let total = Int(sqlite3_backup_pagecount(backup))
            progress(Progress(copiedPages: total - Int(sqlite3_backup_remaining(backup)), totalPages: total))
            if code == SQLITE_BUSY || code == SQLITE_LOCKED { usleep(10_000) }
        } while code == SQLITE_OK || code == SQLITE_BUSY || code == SQLITE_LOCKED
        let total = Int(sqlite3_backup_pagecount(backup))
        let finished = sqlite3_backup_finish(backup)
        guard code == SQLITE_DONE, finished == SQLITE_OK else { throw to.failure("backup step") }
        return total
    }

    /// Checks a finished copy read-write, so that closing the only connection checkpoints and removes
    /// the `-wal` and `-shm` files a read-only check would leave beside the backup.
    private static func check(_ path: String) throws {
        let lines: [String]
        do {
            let connection = try SQLiteConnection(path: path, readOnly: false)
            lines = try connection.query("PRAGMA integrity_check") { $0.text(0) ?? "" }
        } catch {
            throw CacheStoreError.storageFailure(operation: "integrity check of \(path)", detail: "\(error)")
        }
        guard lines == ["ok"] else {
            throw CacheStoreError.storageFailure(
                operation: "integrity check of \(path)", detail: lines.prefix(5).joined(separator: "; "))
        }
    }

    /// Runs `PRAGMA integrity_check` (https://sqlite.org/pragma.html#pragma_integrity_check).
    /// - Parameter path: the database file (opened read-only).
    /// - Returns: the problems found; empty when the file is sound.
    /// - Throws: `CacheStoreError.storageFailure` when the file cannot be opened or read.
    public static func integrityProblems(path: String) throws -> [String] {
        let connection: SQLiteConnection
        do {
            connection = try SQLiteConnection(path: path, readOnly: true)
            let lines = try connection.query("PRAGMA integrity_check") { $0.text(0) ?? "" }
            return lines == ["ok"] ? [] : lines
        } catch {
            throw CacheStoreError.storageFailure(operation: "integrity check of \(path)", detail: "\(error)")
        }
    }
}

/// A bare `sqlite3` handle for the backup API, which needs two of them; closed in `deinit`.
private final class RawDatabase {
    let handle: OpaquePointer
    let path: String

    init(path: String, flags: Int32) throws {
        var database: OpaquePointer?
        // The default VFS, after the process's settings (should this be its first open of SQLite).
        _ = SQLiteConnection.processSetup
        let code = sqlite3_open_v2(path, &database, flags, nil)
        guard code == SQLITE_OK, let database else {
            let message = database.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(database)
            throw CacheStoreError.storageFailure(operation: "open \(path)", detail: "\(message) (code \(code))")
        }
        handle = database
        self.path = path
        sqlite3_busy_timeout(database, 5_000)
    }

    deinit { sqlite3_close_v2(handle) }

    func execute(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw failure(sql) }
    }

    func failure(_ operation: String) -> CacheStoreError {
        .storageFailure(
            operation: "\(operation) on \(path)",
            detail: "SQLite error \(sqlite3_extended_errcode(handle)): \(String(cString: sqlite3_errmsg(handle)))")
    }
}
