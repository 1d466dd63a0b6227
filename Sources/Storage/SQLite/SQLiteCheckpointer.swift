import Dispatch
import Synchronization

/// Copies the WAL into the database file on a connection and a thread of its own, so that a commit
/// never waits for a checkpoint.
///
/// Why: SQLite's automatic checkpoint runs inside the commit that takes the WAL past 1 000 pages. That
/// commit copies every page of the log into the database file and waits for two `fdatasync`s, while the
/// one writer connection, and every body waiting to be committed behind it, waits too. Under a flood of
/// misses the writer spent most of its time in system calls, a third of them the checkpoint's; the store
/// paces misses (`StoreBacklog`), so the checkpoint paced them: with the checkpoint on its own thread a
/// 1 KiB flood ran faster in 6 rounds of 6, by 5.8 % at the median (docs/ARCHITECTURE.md, "No commit
/// waits for a checkpoint").
///
/// The writer reports the log's length after each commit (`walGrew(to:)`, from SQLite's WAL hook); every
/// `threshold` pages of growth a passive checkpoint runs here: it copies what no reader still needs and
/// never blocks the writer or a reader. A passive checkpoint cannot bring the log back to its start
/// while commits keep coming (the writer restarts the log only when every frame is in the file), so
/// past `restartPages` the writer checkpoints the little that is left itself, as SQLite would have, and
/// the log starts over. That copy can be refused (a background pass holds the lock, a reader still needs
/// the frames) and is then tried at every commit: under floods the WAL file reached 26–37 MB, a few times
/// `restartPages`, against about 4 MB with SQLite's own checkpoint.
final class SQLiteCheckpointer: Sendable {
    /// Pages of log growth between two checkpoints: SQLite's own default
    /// (https://sqlite.org/pragma.html#pragma_wal_autocheckpoint).
    static let threshold = 1000
    /// Pages past which the writer checkpoints inline (at commit) to restart the log.
    static let restartPages = 4 * threshold

    private struct State {
        var scheduled = false
        /// The log's length when the last checkpoint was scheduled.
        var pagesAtLastRun = 0
    }

    private let connection: SQLiteConnection
    /// Where checkpoints run (internal: tests suspend it).
    let queue = DispatchQueue(label: "larder.storage.checkpoint", qos: .utility)
    private let state = Mutex(State())
    /// Checkpoints run here (for tests).
    let runs = Atomic<Int>(0)

    /// Opens the checkpointer's connection to a database already in WAL mode.
    /// - Parameters:
    ///   - path: the file.
    ///   - syncs: whether a checkpoint syncs, as the writer's do (`SQLiteDatabase`).
    /// - Throws: `SQLiteError` when it cannot be opened.
    init(path: String, syncs: Bool) throws {
        connection = try SQLiteConnection(path: path, readOnly: false)
        // Synced as the writer's: the log before the copy, the file after it (or neither, when nothing syncs).
        try connection.execute("PRAGMA synchronous = \(syncs ? "NORMAL" : "OFF")")
    }

    /// The connection's `PRAGMA synchronous` (for tests).
    func synchronous() throws -> Int {
        try queue.sync { try connection.queryFirst("PRAGMA synchronous") { $0.int(0) } ?? -1 }
    }

    /// Makes later checkpoints sync (`synchronous = NORMAL`), after the one under way, if any.
    /// - Throws: `SQLiteError` when the pragma fails.
    func syncFromNowOn() throws {
        try queue.sync { try connection.execute("PRAGMA synchronous = NORMAL") }
    }

    /// After a commit: the log has `pages` pages. Schedules a checkpoint when it grew by `threshold` since
    /// the last one (a log that started over counts from 0).
    /// - Returns: whether the writer should checkpoint now itself (the log passed `restartPages`).
    func walGrew(to pages: Int) -> Bool {
        let schedule = state.withLock { state -> Bool in
            if pages < state.pagesAtLastRun { state.pagesAtLastRun = 0 }
            guard !state.scheduled, pages - state.pagesAtLastRun >= Self.threshold else { return false }
            state.scheduled = true
            state.pagesAtLastRun = pages
            return true
        }
        if schedule { queue.async { [self] in checkpoint() } }
        return pages >= Self.restartPages
    }

    private func checkpoint() {
        // PASSIVE: copies the frames no reader needs, waits for nobody; a failure is retried next time.
        try? connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
        runs.add(1, ordering: .relaxed)
        state.withLock { $0.scheduled = false }
    }

    /// Waits for the checkpoint under way, if any, to end.
    func drain() {
        queue.sync {}
    }
}
