import ArgumentParser
import CacheCore
import FoundationEssentials
import Glibc
import LarderApp
import Storage

/// `larder backup <file>`: an online, consistent copy of the cache database while the server runs.
///
/// SQLite's backup API copies one WAL snapshot a few pages at a time (`SQLiteBackup`); the copy is
/// checked with `PRAGMA integrity_check` before the command reports success. Restore: stop the
/// server, copy the backup over `--db` (removing any `-wal` and `-shm` beside it), start the server.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup", abstract: "Copy the cache database consistently while the server runs.",
        discussion: """
            Progress is shown on stderr when it is a terminal. Restore: stop the server, copy the backup \
            over the database file, delete the database's -wal and -shm files, start the server.
            """)

    // The store's own declarations, for the flag this command shares with `serve`.
    private static let store = StoreSettings()

    @Argument(help: "The backup file to write.") var file: String
    @Option(help: ArgumentHelp(Self.store.$databasePath.help)) var db: String?
    @Flag(help: "Replace the backup file if it exists.") var force = false
    @Flag(help: "Skip the integrity check of the copy.") var noVerify = false

    func run() throws {
        let source = try StoreSettings.resolving(
            flags: [Self.store.$databasePath.flag: db], in: ProcessInfo.processInfo.environment
        ).databasePath
        guard DatabaseFileCheck.exists(source, command: "backup", flag: db) else { throw ExitCode.failure }
        guard access(source, R_OK) == 0 else {
            print("larder backup: cannot read \(source)")
            throw ExitCode.failure
        }
        let showProgress = isatty(STDERR_FILENO) == 1
        var lastShown = -1
        do {
            let pages = try SQLiteBackup.copy(from: source, to: file, overwrite: force, verify: !noVerify) {
                progress in
                guard showProgress, progress.totalPages > 0 else { return }
                let percent = progress.copiedPages * 100 / progress.totalPages
                guard percent != lastShown else { return }
                lastShown = percent
                Self.writeToStandardError(
                    "\rbackup: \(percent)% (\(progress.copiedPages)/\(progress.totalPages) pages)")
            }
            if showProgress { Self.writeToStandardError("\n") }
            print("backed up \(source) to \(file): \(pages) pages\(noVerify ? "" : ", integrity_check ok")")
        } catch let error as CacheStoreError {
            print("larder backup: \(error)")
            throw ExitCode.failure
        }
    }

    /// Writes progress text to stderr unbuffered (the C `stderr` global is not concurrency-safe to name).
    private static func writeToStandardError(_ text: String) {
        var bytes = Array(text.utf8)
        _ = write(STDERR_FILENO, &bytes, bytes.count)
    }
}
