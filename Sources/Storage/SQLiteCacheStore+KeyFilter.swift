public import CacheCore
import Dispatch

extension SQLiteCacheStore {
    /// Whether the store may hold anything under `primaryKey`: `false` only when it certainly holds
    /// neither an entry nor `Vary` names there (`StoredKeyFilter`). Answered from memory.
    public func mayHold(primaryKey: CacheKey) -> Bool {
        mayHold(rowOf: primaryKey)
    }

    /// Whether the store may hold a row under `key`'s row id, whichever key it was written for: `false`
    /// only when it certainly holds none. Answered from memory.
    func mayHold(rowOf key: CacheKey) -> Bool {
        !configuration.filtersKeys || keyFilter.mayHold(key.leadingWord)
    }

    /// Whether the store may hold `Vary` names for `primaryKey`: `false` only when it certainly holds none
    /// (`varyFilter`), and then the URL's entry, if any, is under the primary key itself. Answered from memory.
    public func mayVary(primaryKey: CacheKey) -> Bool {
        !configuration.filtersKeys || varyFilter.mayHold(primaryKey.leadingWord)
    }

    /// The key filters' tables, in bytes: 2–4 a stored entry and 2–4 a URL that varies, at least 8 KiB each;
    /// 0 before their first build.
    public var keyFilterBytes: Int { (keyFilter.figures?.bytes ?? 0) + (varyFilter.figures?.bytes ?? 0) }

    /// Adds a primary key inside the transaction that writes its row, and starts a build of a larger table
    /// when this one is past its capacity.
    func addToKeyFilter(_ primaryKey: CacheKey) {
        if keyFilter.add(primaryKey.leadingWord) { scheduleKeyFilterBuild() }
    }

    /// Adds a primary key inside the transaction that writes its `vary` row, as `addToKeyFilter` does.
    func addToVaryFilter(_ primaryKey: CacheKey) {
        if varyFilter.add(primaryKey.leadingWord) { scheduleKeyFilterBuild() }
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
        // Both filters are built here, on one serial queue: the vary filter's build cannot be running.
        let varyBuildBegan = varyFilter.beginBuild()
        do {
            // A transaction under way when the build began may have added its key before `beginBuild`;
            // the snapshot below must include its rows, so it waits until the writer is free once.
            try database.write { _ in }
            let (entries, varying) = try database.read { connection in
                // Every entry's row id (the covering `entry_seq` index is read, not the rows), and the
                // primary keys of the URLs that vary, whose entries are under secondary keys.
                let entries = try connection.query("SELECT id FROM entry") { UInt64(bitPattern: $0.int64(0)) }
                let varying = try connection.query("SELECT primary_key FROM vary") { CacheKey(bytes: $0.blob(0)) }
                return (entries, varying.compactMap { $0?.leadingWord })
            }
            keyFilter.finishBuild(scanned: entries + varying)
            if varyBuildBegan { varyFilter.finishBuild(scanned: varying) }
        } catch {
            keyFilter.abandonBuild()
            if varyBuildBegan { varyFilter.abandonBuild() }
        }
    }
}
