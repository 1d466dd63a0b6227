public import CacheCore
import Dispatch

extension SQLiteCacheStore {
    /// Whether the store may hold anything under `primaryKey`: `false` only when it certainly holds
    /// neither an entry nor `Vary` names there (`StoredKeyFilter`). Answered from memory.
    public func mayHold(primaryKey: CacheKey) -> Bool {
        !configuration.filtersKeys || keyFilter.mayHold(primaryKey.leadingWord)
    }

    /// The key filter's table, in bytes: 2–4 a stored entry, at least 8 KiB; 0 before its first build.
    public var keyFilterBytes: Int { keyFilter.figures?.bytes ?? 0 }

    /// Adds a primary key inside the transaction that writes its row, and starts a build of a larger table
    /// when this one is past its capacity.
    func addToKeyFilter(_ primaryKey: CacheKey) {
        if keyFilter.add(primaryKey.leadingWord) { scheduleKeyFilterBuild() }
    }

    /// Builds the key filter from the store on `keyFilterBuilds`, when none is running.
    func scheduleKeyFilterBuild() {
        guard configuration.filtersKeys else { return }
        keyFilterBuilds.async { [weak self] in self?.buildKeyFilter() }
    }

    /// Builds the key filter from the store now, on the caller's thread (for tests; `scheduleKeyFilterBuild`
    /// otherwise). A build that cannot read the store leaves the table it replaces, if any, in force.
    func buildKeyFilter() {
        guard keyFilter.beginBuild() else { return }
        do {
            // A transaction under way when the build began may have added its key before `beginBuild`;
            // the snapshot below must include its rows, so it waits until the writer is free once.
            try database.write { _ in }
            let ids = try database.read { connection in
                // Every entry's row id (the covering `entry_seq` index is read, not the rows), and the
                // primary keys of the URLs that vary, whose entries are under secondary keys.
                let entries = try connection.query("SELECT id FROM entry") { UInt64(bitPattern: $0.int64(0)) }
                let varying = try connection.query("SELECT primary_key FROM vary") { CacheKey(bytes: $0.blob(0)) }
                return entries + varying.compactMap { $0?.leadingWord }
            }
            keyFilter.finishBuild(scanned: ids)
        } catch {
            keyFilter.abandonBuild()
        }
    }
}
