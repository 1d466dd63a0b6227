public import CacheCore

extension SQLiteCacheStore {
    /// Lists entries newest first (highest `seq` first), one page at a time; the cursor is the `seq`
    /// the next page starts below, so a page is one index range walk whatever the table's size.
    public func list(_ query: CacheEntryQuery) throws -> CacheEntryPage {
        let below = try query.cursor.map(CacheEntryQuery.position(of:)) ?? Int64.max
        let selected = Self.purgeCondition(query.scope)
        var conditions = ["seq < ?", selected.sql, Self.notPurged]
        var values: [SQLiteValue] = [.integer(below)] + selected.values
        if let type = query.contentType?.lowercased() {
            if type.hasSuffix("/*") {
                // "image/*": media types from "image/" up to, not including, "image0" ('0' follows '/').
                let top = String(type.dropLast())
                conditions.append("media_type >= ? AND media_type < ?")
                values += [.text(top), .text(String(top.dropLast()) + "0")]
            } else {
                conditions.append("media_type = ?")
                values.append(.text(type))
            }
        }
        values.append(.int(query.limit + 1))
        let sql = Self.selectEntry + " WHERE " + conditions.joined(separator: " AND ") + " ORDER BY seq DESC LIMIT ?"
        let rows = try guarded("list") {
            try database.read { try $0.query(sql, values) { (id: $0.int64(24), entry: try Self.entry($0)) } }
        }
        let page = rows.prefix(query.limit)
        let next = rows.count > query.limit ? page.last.map { CacheEntryQuery.cursor(after: $0.id) } : nil
        return CacheEntryPage(entries: page.map { withUnwrittenHits($0.entry) }, nextCursor: next)
    }
}
