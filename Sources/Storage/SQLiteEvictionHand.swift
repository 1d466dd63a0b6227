/// Where eviction stands in the store's insertion order, and which entries it spares: a CLOCK over
/// `seq` whose reference bit is a time. The hand takes entries in `seq` order from where it stopped; an
/// entry used since the start of the hand's previous lap is spared and left where it is, any other goes.
/// A lap ends at the newest entry there was when it began, so an entry stored meanwhile waits for the
/// next lap: it has at least the rest of this one to be used.
///
/// Why insertion order: a delete changes a page of every b-tree the entry is in. Entries taken in `seq`
/// order lie together in `entry_seq`, in the chunk table (body ids are given in commit order) and mostly
/// in `entry_sweep`, `entry_host` and `entry_media` (the last two end in `seq`), so a commit group's
/// evictions change a few neighbouring pages of each instead of one page each. Eviction of the least
/// recently used of a sample of random rows, which this replaced, cost each stored miss of a full store
/// about 100 µs more than one of a growing store (docs/ARCHITECTURE.md).
///
/// Sparing an entry writes nothing: when it was last used is its usage row's or the hit log's time, and the
/// hand compares it with the start of its previous lap. An entry never hit goes when the hand reaches it.
/// A lap that spared every entry it passed is followed by one that spares what was used since it began, as
/// a CLOCK's second pass would; should that one spare every entry too, the next spares none (plain
/// insertion order), so eviction always ends.
///
/// The hand is a row of its own (`eviction_hand`, schema version 8), read and written in each eviction's
/// transaction, so a restart goes on where the last process stopped and a rolled-back eviction moved
/// nothing.
struct SQLiteEvictionHand: Equatable {
    /// What the hand did in its lap so far; it decides the next lap's rule.
    enum Lap: Int, Equatable {
        /// No entry passed yet.
        case passedNone = 0
        /// Every entry passed was spared.
        case sparedAll = 1
        /// At least one entry was taken.
        case took = 2
    }

    /// The `seq` of the last entry the hand passed in this lap; 0 before the first.
    private(set) var position: Int64
    /// The newest entry's `seq` when this lap began: the lap ends there.
    private(set) var lapEnd: Int64
    /// Entries last used at or after this time (seconds since 1970) are spared in this lap.
    private(set) var sparedIfUsedSince: Double
    /// When this lap began (seconds since 1970).
    private(set) var lapStartedAt: Double
    private(set) var lap: Lap
    /// Whether the previous lap spared every entry it passed.
    private(set) var previousLapSparedAll: Bool

    /// A hand at a lap's start, or one read back from its row.
    init(
        position: Int64, lapEnd: Int64, sparedIfUsedSince: Double, lapStartedAt: Double, lap: Lap,
        previousLapSparedAll: Bool
    ) {
        self.position = position
        self.lapEnd = lapEnd
        self.sparedIfUsedSince = sparedIfUsedSince
        self.lapStartedAt = lapStartedAt
        self.lap = lap
        self.previousLapSparedAll = previousLapSparedAll
    }

    /// Passes the entry at `seq` and says whether it goes.
    /// - Parameters:
    ///   - seq: the entry's `seq`, above `position` and at most `lapEnd`.
    ///   - lastUse: when it was last used (seconds since 1970), `nil` when it was never hit.
    /// - Returns: `true` when it is to be evicted.
    mutating func takes(seq: Int64, lastUse: Double?) -> Bool {
        position = seq
        guard let lastUse, lastUse >= sparedIfUsedSince else {
            lap = .took
            return true
        }
        if lap == .passedNone { lap = .sparedAll }
        return false
    }

    /// The hand passed its lap's last entry: a new lap starts at the oldest entry.
    /// - Parameters:
    ///   - now: the time (seconds since 1970).
    ///   - newest: the newest entry's `seq`, where the new lap ends.
    mutating func wrap(at now: Double, newest: Int64) {
        switch lap {
        case .took:
            sparedIfUsedSince = lapStartedAt
            previousLapSparedAll = false
        case .sparedAll:
            sparedIfUsedSince = previousLapSparedAll ? .infinity : lapStartedAt
            previousLapSparedAll = true
        case .passedNone:
            break
        }
        lapStartedAt = now
        lapEnd = newest
        position = 0
        lap = .passedNone
    }
}
