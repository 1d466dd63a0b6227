public import CacheCore
import FoundationEssentials
import Synchronization

extension SQLiteCacheStore {
    /// Rows one purge transaction changes at most: a purge of many entries is several short transactions,
    /// so that hits and stores go on between them.
    public static let purgeBatchSize = 1000
    /// How long one purge transaction should hold the writer: batches shrink below `purgeBatchSize` rows
    /// when they take longer (a large store whose pages are not in memory).
    static let purgeBatchTarget = Duration.milliseconds(50)
    /// How long the other writers get the writer after each batch, as a share of the batch's time
    /// (`SQLiteDatabase.yieldTurn`): 1 is equal turns while commits keep coming.
    static let purgeTurnShare = 1.0

    /// Deletes, or marks stale (`soft`), the entries a purge selects, in transactions of at most
    /// `purgeBatchSize` rows (fewer while batches take longer than `purgeBatchTarget`). Between two batches
    /// the writers waiting for the writer (commits) get it for as long as the batch held it
    /// (`SQLiteDatabase.yieldTurn`), so misses keep being stored during a long purge, and a purge that
    /// nobody waits behind goes on at once. A tag condition walks the `entry_tag` index; a URL one (every
    /// `Vary` variant of the URL) `entry_url`. Entries committed after the purge began are left to the
    /// purge log (`SQLitePurgeLog`): they are committed stale when the purge selects them.
    ///
    /// A hard purge deletes in two steps: it records the entries in `entry_purged`, which every read leaves
    /// out from the moment the batch commits, and the reclaimer deletes their rows, bodies and index rows
    /// afterwards (`scheduleReclaim`). Recording a thousand entries changes a few pages; deleting them
    /// changes about nine b-trees at random pages each (`Benchmarks/purge`).
    @discardableResult
    public func purge(_ scope: CachePurgeScope, soft: Bool) throws -> Int {
        try purgeLock.withLock { _ in
            try guarded("purge") {
                let now = configuration.clock()
                // The newest entry when the purge begins bounds it: a purge ends even under a flood of stores.
                let last = try database.writeBatch { connection -> Int64 in
                    purgeLog.record(scope, at: now)
                    return try connection.queryFirst("SELECT coalesce(max(seq), 0) FROM entry") { $0.int64(0) } ?? 0
                }
                if soft { return try markStale(scope, upTo: last, at: now) }
                let purged = try recordPurged(scope, upTo: last)
                if purged > 0 { scheduleReclaim() }
                return purged
            }
        }
    }

    /// Runs a purge's batches: `batch(size)` changes at most `size` rows in one transaction and returns
    /// how many it changed and whether rows are left; the batches shrink while one holds the writer longer
    /// than `purgeBatchTarget`, and the other writers get their turn between two.
    /// - Returns: the rows changed in all.
    private func inBatches(_ batch: (Int) throws -> (changed: Int, more: Bool)) throws -> Int {
        var total = 0
        var size = min(100, Self.purgeBatchSize)
        let clock = ContinuousClock()
        while true {
            let started = clock.now
            let (changed, more) = try batch(size)
            purgeTransactions.add(1, ordering: .relaxed)
            purgeLargestTransaction.max(changed, ordering: .relaxed)
            total += changed
            if !more { return total }
            let took = max(clock.now - started, .microseconds(100))
            size = Self.nextBatchSize(after: size, took: took)
            database.yieldTurn(took * Self.purgeTurnShare)
        }
    }

    /// The hard purge's first step: records the selected entries in `entry_purged`, with their count and
    /// bytes in `stats`, in batches of rows taken in id order (the reclaimer deletes them in that order,
    /// so its batches touch the entry table's pages in order). The entries are selected once, from a
    /// snapshot holding every entry up to `last` (8 bytes of memory per entry while the purge runs); a batch
    /// checks each again, since a row may have gone or been replaced (a replacement is newer than `last`)
    /// since.
    private func recordPurged(_ scope: CachePurgeScope, upTo last: Int64) throws -> Int {
        let condition = Self.purgeCondition(scope)
        let selected = try database.read { connection in
            try connection.query(
                "SELECT id FROM entry WHERE \(condition.sql) AND seq <= ? AND \(Self.notPurged)",
                condition.values + [.integer(last)]
            ) { $0.int64(0) }
        }.sorted()
        // Row by row: the tags as a correlated condition, a lookup in `entry_tag` per row, where the
        // selection's list of the tag's entries would be built again for every row.
        let check = Self.purgeCondition(scope, correlatedTags: true)
        let recheck = """
            SELECT footprint FROM entry WHERE id = ? AND \(check.sql) AND seq <= ? AND \(Self.notPurged)
            """
        var next = 0
        return try inBatches { size in
            let rows = selected[next..<min(next + size, selected.count)]
            next = rows.endIndex
            let recorded = try database.writeBatch { connection -> Int in
                var recorded = 0
                try connection.inTransaction {
                    var bytes = 0
                    for id in rows {
                        guard
                            let footprint = try connection.queryFirst(
                                recheck, [.integer(id)] + check.values + [.integer(last)], row: { $0.int(0) })
                        else { continue }
                        // Before the batch commits: from then on a lookup must check `entry_purged`.
                        if recorded == 0 { purgedRowsMayExist.store(true, ordering: .releasing) }
                        _ = try connection.run(Self.insertPurged, [.integer(id)])
                        recorded += 1
                        bytes += footprint
                    }
                    if recorded > 0 {
                        try connection.run(
                            "UPDATE stats SET purged_count = purged_count + ?, purged_bytes = purged_bytes + ? WHERE id = 1",
                            [.int(recorded), .int(bytes)])
                    }
                    if next == selected.count { try Self.forgetVary(scope, connection: connection) }
                    return .commit
                }
                if next == selected.count { forgetVaryMemo(scope) }
                return recorded
            }
            return (recorded, next < selected.count)
        }
    }

    private static let insertPurged = SQLiteQuery("INSERT INTO entry_purged (id) VALUES (?)")

    /// The soft purge: sets `stale_since` on the selected entries. Marked rows stay, so each batch starts
    /// after the last row the previous one marked (`id > ?`, in id order): without the cursor, batch k
    /// would step over the k batches of rows already marked before finding new ones, quadratic in the rows
    /// purged.
    private func markStale(_ scope: CachePurgeScope, upTo last: Int64, at now: Date) throws -> Int {
        let condition = Self.purgeCondition(scope)
        let sql = """
            UPDATE entry SET stale_since = ?, sweep_after = min(sweep_after, ? + stale_allowance)
            WHERE id IN (SELECT id FROM entry WHERE \(condition.sql) AND seq <= ? AND stale_since IS NULL
                AND \(Self.notPurged) AND id > ? ORDER BY id LIMIT ?)
            RETURNING id
            """
        let values =
            [.real(now.timeIntervalSince1970), .real(now.timeIntervalSince1970)] + condition.values
            + [.integer(last)]
        var cursor = Int64.min
        return try inBatches { size in
            let marked = try database.writeBatch { connection -> Int in
                var marked = 0
                try connection.inTransaction {
                    let rows = try connection.query(sql, values + [.integer(cursor), .int(size)]) { $0.int64(0) }
                    marked = rows.count
                    cursor = rows.max() ?? cursor
                    return .commit
                }
                // The marked entries' remembered forms are not stale: none is used from now on.
                entryMemo.entriesChanged()
                return marked
            }
            return (marked, marked == size)
        }
    }

    /// Counts what a purge would select and lists its first keys, newest first; changes nothing.
    public func previewPurge(_ scope: CachePurgeScope, soft: Bool, limit: Int) throws -> CachePurgePreview {
        var condition = Self.purgeCondition(scope)
        condition.sql += " AND " + Self.notPurged
        if soft { condition.sql += " AND stale_since IS NULL" }
        return try guarded("purge preview") {
            try database.read { connection in
                let count =
                    try connection.queryFirst("SELECT count(*) FROM entry WHERE " + condition.sql, condition.values) {
                        $0.int(0)
                    } ?? 0
                let keys = try connection.query(
                    "SELECT key FROM entry WHERE \(condition.sql) ORDER BY seq DESC LIMIT ?",
                    condition.values + [.int(max(0, limit))]
                ) { row in row.withBlob(0) { CacheKey(bytes: $0) } }
                return CachePurgePreview(count: count, keys: keys.compactMap { $0 })
            }
        }
    }

    /// Transactions purges have run since the store was opened (each changes at most `purgeBatchSize`
    /// rows), for tests and the purge benchmark.
    public var purgeTransactionCount: Int { purgeTransactions.load(ordering: .relaxed) }

    /// The most rows one purge transaction changed since the store was opened (at most `purgeBatchSize`).
    public var purgeLargestTransactionRows: Int { purgeLargestTransaction.load(ordering: .relaxed) }

    /// The recorded `Vary` names a hard purge leaves without entries: all of them for a purge of
    /// everything, the URL's for a purge of one URL. Others stay; a name list without entries only costs
    /// a lookup that misses.
    private static func forgetVary(_ scope: CachePurgeScope, connection: SQLiteConnection) throws {
        if scope.isAll {
            try connection.run("DELETE FROM vary")
        } else if let url = scope.onlyURL {
            try connection.run(
                "DELETE FROM vary WHERE primary_key = ?", [.blob(CacheKey.make(canonicalURL: url).bytes)])
        }
    }

    /// What `forgetVary` removed from the table, once its transaction committed.
    private func forgetVaryMemo(_ scope: CachePurgeScope) {
        if scope.isAll {
            varyMemo.forgetAll()
        } else if let url = scope.onlyURL {
            varyMemo.forget([CacheKey.make(canonicalURL: url)])
        }
    }

    /// The SQL condition (on `entry`) of a purge scope or a listing's tags: every condition given, ANDed.
    /// - Parameters:
    ///   - scope: the purge or listing.
    ///   - correlatedTags: tags as a lookup in `entry_tag` for the row at hand, for a condition checked
    ///     on one row at a time; else as the list of the tags' entries, which drives a selection.
    static func purgeCondition(_ scope: CachePurgeScope, correlatedTags: Bool = false) -> (
        sql: String, values: [SQLiteValue]
    ) {
        var conditions: [String] = []
        var values: [SQLiteValue] = []
        if let url = scope.url {
            conditions.append("url = ?")
            values.append(.text(url))
        }
        if let host = scope.host {
            conditions.append("host = ?")
            values.append(.text(host))
        }
        if let prefix = scope.urlPrefix {
            let condition = urlPrefixCondition(prefix)
            conditions.append(condition.sql)
            values += condition.values
        }
        if !scope.tags.isEmpty {
            let tags = Array(repeating: "?", count: scope.tags.count).joined(separator: ", ")
            conditions.append(
                correlatedTags
                    ? "EXISTS (SELECT 1 FROM entry_tag WHERE tag IN (\(tags)) AND entry_tag.entry = entry.id)"
                    : tagCondition(count: scope.tags.count))
            values += scope.tags.map { .text($0) }
        }
        return (conditions.isEmpty ? "1" : conditions.joined(separator: " AND "), values)
    }

    /// Entries carrying any of `count` tags: a range of the `entry_tag` index per tag.
    static func tagCondition(count: Int) -> String {
        "entry.id IN (SELECT entry FROM entry_tag WHERE tag IN ("
            + Array(repeating: "?", count: count).joined(separator: ", ")
            + "))"
    }

    /// Adds the rows of `entry_tag` for a tagged entry (in the commit's transaction).
    static func insertTags(_ tags: [String], of key: CacheKey, connection: SQLiteConnection) throws {
        for tag in tags {
            try connection.run(
                "INSERT OR IGNORE INTO entry_tag (tag, entry) VALUES (?, ?)", [.text(tag), .integer(rowID(key))])
        }
    }

    /// Tags as the JSON array the `entry_untagged` trigger reads with `json_each`. Tags hold no control
    /// characters (`EntryTags`), so escaping `"` and `\` is all JSON asks.
    static func encodeTags(_ tags: [String]) -> String {
        var json = "["
        for (index, tag) in tags.enumerated() {
            if index > 0 { json.append(",") }
            json.append("\"")
            for character in tag {
                if character == "\\" || character == "\"" { json.append("\\") }
                json.append(character)
            }
            json.append("\"")
        }
        return json + "]"
    }

    /// The inverse of `encodeTags`.
    static func decodeTags(_ text: String) -> [String] {
        var tags: [String] = []
        var current: [UInt8] = []
        var inString = false
        var escaped = false
        for byte in text.utf8 {
            if !inString {
                if byte == UInt8(ascii: "\"") { inString = true }
                continue
            }
            if escaped {
                current.append(byte)
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                tags.append(String(decoding: current, as: UTF8.self))
                current.removeAll(keepingCapacity: true)
                inString = false
            } else {
                current.append(byte)
            }
        }
        return tags
    }
}
