import CSQLite
import FoundationEssentials
import Glibc

/// The file beside an unsynced store (`<database>-unsynced`) that says the store may hold pages the
/// machine has not yet written to its disk, and in which boot of the machine that began.
///
/// With `StoreSync.off` SQLite never calls `fsync`, so only the operating system holds the last pages
/// written; a crash of the process loses nothing (the kernel still writes them), a crash of the machine
/// may leave the file with some pages old and some new. The marker is written and synced before the
/// first unsynced write and removed only once every page is synced, so at the next start it tells the
/// cases apart: no marker, nothing unsynced; a marker from this boot, a process stopped without its
/// final sync but every page still in the kernel's hands; a marker from another boot, a machine that
/// went down with unsynced pages, and a file to check before it is trusted.
struct SQLiteUnsyncedMarker {
    /// What a start finds.
    enum Finding: Equatable {
        /// No marker: every page of the file is on disk.
        case absent
        /// Left by a process of this boot: its pages are in the kernel, not necessarily on disk.
        case thisBoot
        /// Left by another boot of the machine (or one whose boot is not known): the machine went down
        /// with the store unsynced.
        case otherBoot
    }

    /// The marker's path.
    let path: String
    /// The database file it speaks for.
    let databasePath: String
    /// The boot this process runs in, `nil` when unknown (every marker then counts as another boot's).
    let boot: String?

    /// - Parameters:
    ///   - databasePath: the store's file.
    ///   - boot: the machine's current boot (`currentBoot()`).
    init(databasePath: String, boot: String?) {
        self.databasePath = databasePath
        path = databasePath + "-unsynced"
        self.boot = boot
    }

    /// Linux's boot id (`/proc/sys/kernel/random/boot_id`, new at every boot, the host's inside a
    /// container), `nil` where it cannot be read.
    static func currentBoot() -> String? {
        guard let text = readSmallFile("/proc/sys/kernel/random/boot_id") else { return nil }
        let trimmed = text.filter { !$0.isWhitespace }
        return trimmed.isEmpty ? nil : trimmed
    }

    /// Whether a marker is there and from which boot.
    func find() -> Finding {
        guard access(path, F_OK) == 0 else { return .absent }
        guard let boot, let written = Self.readSmallFile(path), written.filter({ !$0.isWhitespace }) == boot
        else { return .otherBoot }
        return .thisBoot
    }

    /// Writes the marker and syncs it and its directory, so that it is on disk before the store writes
    /// anything it does not sync.
    /// - Throws: `SQLiteError` (`SQLITE_IOERR`) naming the failed call.
    func place() throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Self.failure("open", path) }
        defer { close(descriptor) }
        let text = (boot ?? "unknown") + "\n"
        let written = text.utf8CString.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count - 1) }
        guard written == text.utf8.count else { throw Self.failure("write", path) }
        guard fsync(descriptor) == 0 else { throw Self.failure("fsync", path) }
        try Self.syncDirectory(of: path)
    }

    /// Syncs the database file and its WAL, then removes the marker: from here on the file on disk is the
    /// file SQLite sees.
    /// - Throws: `SQLiteError` (`SQLITE_IOERR`) naming the failed call.
    func syncStoreAndRemove() throws {
        try Self.syncIfPresent(databasePath)
        try Self.syncIfPresent(databasePath + "-wal")
        guard unlink(path) == 0 || errno == ENOENT else { throw Self.failure("unlink", path) }
        try Self.syncDirectory(of: path)
    }

    private static func syncIfPresent(_ file: String) throws {
        let descriptor = open(file, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return }
            throw failure("open", file)
        }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw failure("fsync", file) }
    }

    private static func syncDirectory(of file: String) throws {
        let directory = file.lastIndex(of: "/").map { String(file[..<$0]) }.map { $0.isEmpty ? "/" : $0 } ?? "."
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure("open", directory) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw failure("fsync", directory) }
    }

    private static func readSmallFile(_ file: String) -> String? {
        (try? Data(contentsOf: URL(fileURLWithPath: file))).map { String(decoding: $0, as: UTF8.self) }
    }

    /// A failed file call as the store reports it: `SQLITE_IOERR`, the call, the file and `errno`'s text.
    static func failure(_ call: String, _ file: String) -> SQLiteError {
        SQLiteError(code: SQLITE_IOERR, message: "\(call) \(file): \(String(cString: strerror(errno)))")
    }
}
