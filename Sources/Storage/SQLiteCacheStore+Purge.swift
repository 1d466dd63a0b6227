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
    /// (`SQLiteDatabase.yieldTurn`), so misses keep being stored at about half their rate during a long
    /// purge, and a purge that nobody waits behind goes on at once. A tag condition walks the `entry_tag`
    /// index; a URL one (every `Vary` variant of the URL) `entry_url`. Entries committed after the purge began are left to the purge
    /// log (`SQLitePurgeLog`): they are committed stale when the purge selects them.
    @discardableResult
    public func purge(_ scope: CachePurgeScope, soft: Bool) throws -> Int {
        try purgeLock.withLock { _ in
            try guarded("purge") {
                let now = configuration.clock()
                let condition = Self.purgeCondition(scope)
                // The newest entry when the purge begins bounds it: a purge ends even under a flood of stores.
                let last = try database.writeBatch { connection -> Int64 in
                    purgeLog.record(scope, at: now)
                    return try connection.queryFirst("SELECT coalesce(max(seq), 0) FROM entry") { $0.int64(0) } ?? 0
                }
                let sql: String
                var values: [SQLiteValue]
                if soft {
                    // Marked rows stay, so each batch starts after the last row the previous one marked
                    // (`id > ?`, in id order): without the cursor, batch k would step over the k batches of
                    // rows already marked before finding new ones, quadratic in the rows purged.
                    sql = """
                        UPDATE entry SET stale_since = ?, sweep_after = min(sweep_after, ? + stale_allowance)
                        WHERE id IN (SELECT id FROM entry WHERE \(condition.sql) AND seq <= ? AND stale_since IS NULL
                            AND id > ? ORDER BY id LIMIT ?)
                        RETURNING id
                        """
                    values = [.real(now.timeIntervalSince1970), .real(now.timeIntervalSince1970)]
                } else {
                    sql =
                        "DELETE FROM entry WHERE id IN (SELECT id FROM entry WHERE \(condition.sql) AND seq <= ? LIMIT ?)"
                    values = []
                }
                values += condition.values + [.integer(last)]
                var total = 0
                var cursor = Int64.min
                // Rows per transaction: at most `purgeBatchSize`, and fewer when a batch holds the writer
                // longer than `purgeBatchTarget`, so that stores waiting for it are not held up for long.
                var batch = min(100, Self.purgeBatchSize)
                let clock = ContinuousClock()
                while true {
                    let started = clock.now
                    let changed = try database.writeBatch { connection -> Int in
                        var changed = 0
                        try connection.inTransaction {
                            if soft {
                                let marked = try connection.query(sql, values + [.integer(cursor), .int(batch)]) {
                                    $0.int64(0)
                                }
                                changed = marked.count
                                cursor = marked.max() ?? cursor
                            } else {
                                changed = try connection.run(sql, values + [.int(batch)])
                                if changed < batch { try Self.forgetVary(scope, connection: connection) }
                            }
                            return .commit
                        }
                        if !soft && changed < batch { forgetVaryMemo(scope) }
                        return changed
                    }
                    purgeTransactions.add(1, ordering: .relaxed)
                    purgeLargestTransaction.max(changed, ordering: .relaxed)
                    total += changed
                    if changed < batch { break }
                    let took = max(clock.now - started, .microseconds(100))
                    batch = min(Self.purgeBatchSize, max(10, Int(Double(batch) * (Self.purgeBatchTarget / took))))
                    database.yieldTurn(took * Self.purgeTurnShare)
                }
                return total
            }
        }
    }

    /// Counts what a purge would select and lists its first keys, newest first; changes nothing.
    public func previewPurge(_ scope: CachePurgeScope, soft: Bool, limit: Int) throws -> CachePurgePreview {
        var condition = Self.purgeCondition(scope)
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
    static func purgeCondition(_ scope: CachePurgeScope) -> (sql: String, values: [SQLiteValue]) {
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
            conditions.append(tagCondition(count: scope.tags.count))
            values += scope.tags.map { .text($0) }
        }
        return (conditions.isEmpty ? "1" : conditions.joined(separator: " AND "), values)
    }

    /// Entries carrying any of `count` tags: a range of the `entry_tag` index per tag.
    static func tagCondition(count: Int) -> String {
        "id IN (SELECT entry FROM entry_tag WHERE tag IN ("
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
