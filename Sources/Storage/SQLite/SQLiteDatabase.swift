import Glibc
import Synchronization

/// One database file opened as one writer connection and a pool of reader connections.
///
/// In WAL mode readers see the last committed snapshot and never wait behind the writer
/// (https://sqlite.org/wal.html). A read takes an idle reader or opens one, so reads never queue
/// behind each other either; at most `maxIdleReaders` are kept between reads.
///
/// Work done in many write transactions on purpose (a purge of thousands of entries, the hit log's
/// batches) takes turns with
/// the other writers (commits): it writes its batches with `writeBatch` and calls `yieldTurn` between
/// two of them, which leaves the writer to the others for as long as the batch held it, or until none
/// has wanted it for `idleTurn`. The writer's lock alone is not fair: released and taken again at once,
/// it goes back to the thread that released it before a waiting one wakes, and a pause short enough
/// not to slow a purge let about one commit in per batch (misses were stored at 0.03–0.07 of their rate
/// during a purge, `Benchmarks/purge`).
final class SQLiteDatabase: Sendable {
    /// How long no writer may have wanted the writer before a turn given to them ends early: a store
    /// that stores nothing does not slow a purge down by more than this per batch.
    static let idleTurn = Duration.milliseconds(1)

    /// The file.
    let path: String
    private let writer: Mutex<SQLiteConnection>
    /// Writers (`write`) waiting for the writer connection or holding it, and how many got it so far:
    /// what `yieldTurn` watches to tell whether they still want it (internal for tests).
    let writersWaiting = Atomic<Int>(0)
    private let writersServed = Atomic<Int>(0)
    private let idleReaders = Mutex<[SQLiteConnection]>([])
    /// Where the WAL is copied into the file: not in the commits (internal for tests).
    let checkpointer: SQLiteCheckpointer
    private let maxIdleReaders: Int
    private let memoryMapSize: Int

    /// Opens the writer, sets WAL and the pragmas, and runs `prepare` on it before any reader exists.
    /// - Parameters:
    ///   - path: the file, created when missing.
    ///   - maxIdleReaders: readers kept open between reads.
    ///   - memoryMapSize: bytes of the file, from its start, that the writer and the readers read through
    ///     the process's one map of it (`SQLiteConnection.mapDatabase`); 0 for none. Readers also read the
    ///     mapped pages in place (https://sqlite.org/mmap.html). The cost is that an I/O error on a mapped
    ///     page arrives as SIGBUS instead of an error code.
    ///   - syncs: whether checkpoints sync the WAL and the file (`synchronous = NORMAL`) or nothing is ever
    ///     synced (`OFF`, `StoreSync.off`).
    ///   - prepare: schema set-up and migrations, run on the writer.
    /// - Throws: `SQLiteError` or what `prepare` throws.
    init(
        path: String, maxIdleReaders: Int = 4, memoryMapSize: Int = 0, syncs: Bool = true,
        prepare: (SQLiteConnection) throws -> Void
    ) throws {
        self.path = path
        self.maxIdleReaders = maxIdleReaders
        self.memoryMapSize = memoryMapSize
        let connection = try SQLiteConnection(path: path, readOnly: false)
        // WAL: readers and the writer do not block each other (https://sqlite.org/wal.html).
        // synchronous=NORMAL: in WAL mode a commit does not fsync; the WAL is synced at checkpoints. The
        // database stays consistent after a process crash (kill -9 loses nothing committed, since the OS
        // has the pages) and after power loss (the last transactions may roll back, never half-apply)
        // (https://sqlite.org/pragma.html#pragma_synchronous). Losing the last seconds of a cache is
        // acceptable; an fsync per stored chunk is not. With synchronous=OFF not even a checkpoint syncs: a
        // crash of the machine may then corrupt the file, which `StoreSync.off` answers for.
        // secure_delete=OFF: Debian builds SQLite with SQLITE_SECURE_DELETE, which overwrites deleted content
        // with zeros, so each page an eviction frees (a body's overflow pages) was written to the WAL and
        // checkpointed back. A cache's deleted bodies need no shredding; their pages are reused
        // (https://sqlite.org/pragma.html#pragma_secure_delete).
        // cache_size=-8192: the writer's page cache, 8 MiB, part of the process's memory constant
        // (docs/ARCHITECTURE.md). A flood fills it whole; at 16 MiB the 10-minute flood soak held up to 75.9 MiB
        // beyond every bound, at 8 MiB 61.7, and misses ran within noise of it (`ab.sh`: a full store's 1 KiB
        // x1.036, a growing store's 16 KiB x0.960): the interior pages of the indexes, which every insert and
        // eviction reads, fit either way, and the leaves are random.
        try connection.execute(
            """
            PRAGMA journal_mode = WAL;
            PRAGMA synchronous = \(syncs ? "NORMAL" : "OFF");
            PRAGMA temp_store = MEMORY;
            PRAGMA foreign_keys = OFF;
            PRAGMA secure_delete = OFF;
            PRAGMA cache_size = -8192;
            """)
        try prepare(connection)
        // The writer copies the pages it reads out of the map too, but keeps them in its page cache: it
        // changes them, and SQLite fetches no page in place while it writes.
        if memoryMapSize > 0 { connection.mapDatabase(length: memoryMapSize) }
        // After the schema exists (a new file is in WAL mode by now), and before any commit of the store.
        let checkpointer = try SQLiteCheckpointer(path: path, syncs: syncs)
        connection.onCommit(walPages: checkpointer.walGrew(to:))
        self.checkpointer = checkpointer
        writer = Mutex(connection)
    }

    /// Makes the writer and the checkpointer sync at checkpoints from now on (`synchronous = NORMAL`), for a
    /// store that did not and is stopping.
    /// - Throws: `SQLiteError` when the pragma fails.
    func syncFromNowOn() throws {
        try write { try $0.execute("PRAGMA synchronous = NORMAL") }
        try checkpointer.syncFromNowOn()
    }

    /// Runs `body` with the writer, one caller at a time; a batch waiting in `yieldTurn` lets it in first.
    /// - Parameter body: the work.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws.
    func write<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        // Two relaxed atomic adds a write: nothing a commit would notice.
        writersWaiting.add(1, ordering: .relaxed)
        defer {
            writersWaiting.subtract(1, ordering: .relaxed)
            writersServed.add(1, ordering: .relaxed)
        }
        return try writer.withLock { connection throws -> T in try body(connection) }
    }

    /// Runs one batch of long work with the writer, like `write` but not counted as a writer that
    /// `yieldTurn` waits for; call `yieldTurn` before the next batch.
    /// - Parameter body: the batch.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws.
    func writeBatch<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try writer.withLock { connection throws -> T in try body(connection) }
    }

    /// The other writers' turn, between two batches of `writeBatch`: returns once `turn` has passed, or
    /// once no writer has waited for or held the writer for `idleTurn` (at once, in effect, when nothing
    /// else writes). Meanwhile the batch's thread sleeps, so every writer that comes gets the writer.
    /// - Parameter turn: how long the others may have it; the last batch's time makes the turns equal.
    func yieldTurn(_ turn: Duration) {
        let clock = ContinuousClock()
        let start = clock.now
        var served = writersServed.load(ordering: .relaxed)
        var lastWanted = start
        while true {
            usleep(200)
            let now = clock.now
            if now - start >= turn { return }
            let servedNow = writersServed.load(ordering: .relaxed)
            if servedNow != served || writersWaiting.load(ordering: .relaxed) > 0 {
                served = servedNow
                lastWanted = now
            } else if now - lastWanted >= Self.idleTurn {
                return
            }
        }
    }

    /// Opens a reader (reading through the shared map when configured) with a 2 MiB page cache
    /// (https://sqlite.org/pragma.html#pragma_cache_size). Small on purpose: SQLite empties it at the
    /// reader's first read after any commit, and a body read fills it with pages nobody reads again. At
    /// 8 MiB, ten 100 MB hits raised the process's anonymous peak by 20 MiB (`check-in-flight-memory.sh`)
    /// while hits in a million-entry store ran no faster, and 1 KiB and 16 KiB hits cost 6% and 13% more CPU
    /// (`Benchmarks/fetch/ab.sh`).
    private func openReader() throws -> SQLiteConnection {
        let reader = try SQLiteConnection(path: path, readOnly: true)
        try reader.execute("PRAGMA cache_size = -2048")
        if memoryMapSize > 0 {
            reader.mapDatabase(length: memoryMapSize)
            try reader.execute("PRAGMA mmap_size = \(memoryMapSize)")
        }
        return reader
    }

    /// Runs `body` with a reader connection that no other thread uses meanwhile.
    /// - Parameter body: the work.
    /// - Returns: what `body` returns.
    /// - Throws: `SQLiteError` when no reader can be opened, or what `body` throws.
    func read<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        let reader = try idleReaders.withLock { $0.popLast() } ?? openReader()
        defer {
            idleReaders.withLock { idle in
                if idle.count < maxIdleReaders { idle.append(reader) }
            }
        }
        return try body(reader)
    }
}
