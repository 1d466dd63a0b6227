/// The counters every committed entry advances — the next body id, the next `seq`, and the entry count
/// and bytes in `stats` — read once when a transaction of entries begins and written once before it
/// commits (`SQLiteCommitGroup`, `bulkLoad`), where each entry read and wrote each of them.
///
/// Why: under a flood of misses a group commits about fifty entries, and each took its body id with a
/// `SELECT` and an `UPDATE` of `sqlite_sequence`, its `seq` with a `max(seq)` in its `INSERT`, and counted
/// itself with an `UPDATE` of `stats`: about 16 000 of a miss's 600 000 instructions (callgrind). The values
/// are the ones the per-entry statements gave: one transaction sees its own writes, and the writer
/// connection is the only one that writes entries.
struct SQLiteCommitCounters {
    private var bodies: SQLiteBodyIDSequence
    private var lastSeq: Int64
    private var entries = 0
    private var bytes = 0

    /// Reads the counters, inside the transaction that will write them.
    /// - Parameter connection: the writer connection, in a transaction.
    /// - Throws: `SQLiteError` when a read fails.
    init(reading connection: SQLiteConnection) throws {
        bodies = try SQLiteBodyIDSequence(reading: connection)
        lastSeq = try connection.queryFirst(Self.readSeq, []) { $0.int64(0) } ?? 0
    }

    /// The next body id (never given before, even by a transaction rolled back: see `SQLiteBodyIDSequence`).
    mutating func nextBodyID() -> Int64 { bodies.next() }

    /// The next entry's `seq`: one more than any entry's, and past the eviction hand's current lap.
    mutating func nextSeq() -> Int64 {
        lastSeq += 1
        return lastSeq
    }

    /// Counts an inserted entry in `stats`.
    /// - Parameter footprint: its `footprint` column.
    mutating func countInserted(footprint: Int) {
        entries += 1
        bytes += footprint
    }

    /// Writes what was taken, before the transaction commits.
    /// - Parameter connection: the connection the counters were read on, in the same transaction.
    /// - Throws: `SQLiteError` when a write fails (the transaction is then rolled back).
    func write(_ connection: SQLiteConnection) throws {
        try bodies.write(connection)
        if entries > 0 { _ = try connection.run(Self.countInserts, [.int(entries), .int(bytes)]) }
    }

    /// The last `seq` given, as far as anything still shows it: the newest entry's, or the end of the eviction
    /// hand's lap when that is higher (the newest entries were deleted since the lap began). A lap takes the
    /// entries up to its end, which were there when it began; an entry stored later must fall after it, not
    /// reuse a deleted entry's place in it (`SQLiteEvictionHand`).
    private static let readSeq = SQLiteQuery(
        """
        SELECT max(coalesce((SELECT max(seq) FROM entry), 0),
            coalesce((SELECT lap_end FROM eviction_hand WHERE id = 1), 0))
        """)
    /// Counted here rather than by a trigger (schema version 5).
    private static let countInserts = SQLiteQuery(
        "UPDATE stats SET entry_count = entry_count + ?, total_bytes = total_bytes + ? WHERE id = 1")
}

/// `pending_body`'s AUTOINCREMENT counter, which hands out body ids: read, advanced in memory, and written
/// back in the same transaction. A body id is never reused (one given in a transaction rolled back was
/// never visible), so a reader holding an old id never sees new bytes.
struct SQLiteBodyIDSequence {
    /// The last id given; `nil` on a new database, whose `pending_body` never had a row (no counter yet).
    private var last: Int64?
    private let lastRead: Int64?

    /// - Parameter connection: the writer connection, in a transaction.
    /// - Throws: `SQLiteError` when the read fails.
    init(reading connection: SQLiteConnection) throws {
        lastRead = try connection.queryFirst(Self.read, [], row: { $0.int64(0) })
        last = lastRead
    }

    /// The next id.
    mutating func next() -> Int64 {
        let id = (last ?? 0) + 1
        last = id
        return id
    }

    /// Writes the counter back when ids were taken. A read and a plain update: `UPDATE ... RETURNING`
    /// cost 44 000 instructions (callgrind), three times the insert and delete of a pending row it was to
    /// save.
    /// - Parameter connection: the connection it was read on, in the same transaction.
    /// - Throws: `SQLiteError` when the write fails.
    func write(_ connection: SQLiteConnection) throws {
        guard let last, last != lastRead else { return }
        if lastRead == nil {
            _ = try connection.run(Self.create, [.integer(last)])
        } else {
            _ = try connection.run(Self.update, [.integer(last)])
        }
    }

    private static let read = SQLiteQuery("SELECT seq FROM sqlite_sequence WHERE name = 'pending_body'")
    private static let update = SQLiteQuery("UPDATE sqlite_sequence SET seq = ? WHERE name = 'pending_body'")
    private static let create = SQLiteQuery("INSERT INTO sqlite_sequence (name, seq) VALUES ('pending_body', ?)")
}
