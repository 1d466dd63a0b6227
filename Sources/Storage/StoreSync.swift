/// When the store's file is made durable with `fsync`: what a flood of misses pays against what a crash
/// of the machine (not of the process: the kernel keeps every page a killed process wrote) costs.
public enum StoreSync: String, CaseIterable, Sendable {
    /// Never synced while the store is open (SQLite's `synchronous = OFF`), and synced once at a clean stop.
    /// A crash of the machine while it is open may leave the file corrupt: the next start finds the marker
    /// it left (`<file>-unsynced`), checks the file and, when the check fails, moves it aside and starts
    /// with an empty store. Every checkpoint's two `fsync`s took a fifth to a third of a 16 KiB miss
    /// flood's rate (docs/ARCHITECTURE.md, "A store that is never synced").
    case off
    /// Synced at every checkpoint (SQLite's `synchronous = NORMAL` in WAL mode): a crash of the machine
    /// loses the last seconds of commits, never the file.
    case checkpoint
}

/// What opening the store found about its last process, when there is something to say.
public enum StoreStartFinding: Equatable, Sendable {
    /// The machine went down while the store was open unsynced; the file passed `PRAGMA integrity_check`
    /// and is kept. `seconds`: how long the check took.
    case checkedAfterCrash(seconds: Double)
    /// The machine went down while the store was open unsynced and the file failed the check: it was
    /// moved to `movedTo` (with its WAL and shared-memory files, when there were any) and the store
    /// starts empty.
    case discardedAfterCrash(movedTo: String, reason: String)
}
