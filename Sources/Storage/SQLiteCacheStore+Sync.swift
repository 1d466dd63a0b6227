import CSQLite
import FoundationEssentials
import Glibc

extension SQLiteCacheStore {
    /// Before the file is opened for serving: reads the marker an unsynced store leaves (`SQLiteUnsyncedMarker`)
    /// and settles what it says, then places the marker again when this process will not sync.
    ///
    /// A marker from another boot means the machine went down with pages only the kernel held: the file is
    /// checked with `PRAGMA integrity_check` and, when it fails (or SQLite finds it corrupt while opening it),
    /// moved aside so that the store starts empty. A marker from this boot means the last process stopped
    /// without its final sync while the kernel kept its pages; a store that syncs from now on syncs them
    /// before the marker goes. A file without a marker is never checked or moved, whatever it holds.
    /// - Parameters:
    ///   - marker: the store's marker.
    ///   - found: what `marker.find()` found before the open.
    ///   - configuration: the store's settings.
    /// - Returns: what a check after a crash found, `nil` when there was none.
    /// - Throws: `SQLiteError` when the marker or the file cannot be synced, written or moved.
    static func settleUnsyncedMarker(
        _ marker: SQLiteUnsyncedMarker, found: SQLiteUnsyncedMarker.Finding, configuration: Configuration
    ) throws -> StoreStartFinding? {
        var finding: StoreStartFinding?
        switch found {
        case .absent:
            break
        case .thisBoot:
            if configuration.sync == .checkpoint { try marker.syncStoreAndRemove() }
        case .otherBoot:
            let clock = ContinuousClock()
            let start = clock.now
            if let problem = try integrityProblem(configuration.path) {
                let movedTo = try moveAside(configuration.path, clock: configuration.clock)
                finding = .discardedAfterCrash(movedTo: movedTo, reason: problem)
            } else {
                let elapsed = (clock.now - start).components
                finding = .checkedAfterCrash(
                    seconds: Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
            }
            // The file that stays is what the disk holds now: nothing unsynced is left of the last boot.
            if configuration.sync == .checkpoint { try marker.syncStoreAndRemove() }
        }
        if configuration.sync == .off { try marker.place() }
        return finding
    }

    /// The first problems `PRAGMA integrity_check` finds (https://sqlite.org/pragma.html#pragma_integrity_check),
    /// or SQLite's error when it finds the file corrupt, not a database or shorter than its header says
    /// while reading it; `nil` for a sound file (or none at all). Any other error (the disk failing a read)
    /// is thrown: that is for an operator to see, not a reason to start over.
    private static func integrityProblem(_ path: String) throws -> String? {
        guard access(path, F_OK) == 0 else { return nil }
        // SQLITE_IOERR_SHORT_READ, a macro Swift does not import (https://sqlite.org/rescode.html#ioerr_short_read).
        let shortRead = SQLITE_IOERR | (2 << 8)
        do {
            let connection = try SQLiteConnection(path: path, readOnly: false)
            let lines = try connection.query("PRAGMA integrity_check(5)") { $0.text(0) ?? "" }
            return lines == ["ok"] ? nil : lines.joined(separator: "; ")
        } catch let error as SQLiteError
            where [SQLITE_CORRUPT, SQLITE_NOTADB].contains(error.primaryCode) || error.code == shortRead
        {
            return error.message
        }
    }

    /// Renames the file, its WAL and its shared-memory file to `<file>.corrupt-<unix seconds>` (and `-wal`,
    /// `-shm`): kept for whoever wants to look, out of the store's way.
    private static func moveAside(_ path: String, clock: () -> Date) throws -> String {
        let target = "\(path).corrupt-\(Int(clock().timeIntervalSince1970))"
        for suffix in ["-wal", "-shm", ""] where access(path + suffix, F_OK) == 0 {
            guard rename(path + suffix, target + suffix) == 0 else {
                throw SQLiteUnsyncedMarker.failure("rename", "\(path + suffix) to \(target + suffix)")
            }
        }
        return target
    }

    /// For a clean stop: writes the hits, checkpoints the WAL into the file without waiting for other
    /// processes (`checkpoint(waiting: false)`), and, for a store that does not sync, syncs the file and its
    /// WAL and removes its marker. Call it once nothing of this process writes to the store any more; a
    /// write after it is synced at checkpoints.
    /// - Throws: `CacheStoreError` when the store cannot be written or synced (the marker then stays, and
    ///   the next start after a crash of the machine checks the file).
    public func shutDown() throws {
        if configuration.sync == .off { try guarded("sync") { try database.syncFromNowOn() } }
        try checkpoint(waiting: false)
        if configuration.sync == .off {
            try guarded("sync") {
                try SQLiteUnsyncedMarker(databasePath: configuration.path, boot: configuration.boot)
                    .syncStoreAndRemove()
            }
        }
    }
}
