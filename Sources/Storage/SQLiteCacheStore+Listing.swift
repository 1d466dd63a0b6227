public import CacheCore

extension SQLiteCacheStore {
    /// Lists entries newest first (highest `seq` first), one page at a time; the cursor is the `seq`
    /// the next page starts below, so a page is one index range walk whatever the table's size.
    public func list(_ query: CacheEntryQuery) throws -> CacheEntryPage {
        let below = try query.cursor.map(CacheEntryQuery.position(of:)) ?? Int64.max
        var conditions = ["seq < ?"]
        var values: [SQLiteValue] = [.integer(below)]
        if let host = query.host {
            conditions.append("host = ?")
            values.append(.text(host.lowercased()))
        }
        if let prefix = query.urlPrefix {
            let condition = Self.urlPrefixCondition(prefix)
            conditions.append(condition.sql)
            values += condition.values
        }
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
        if !query.tags.isEmpty {
            conditions.append(Self.tagCondition(count: query.tags.count))
            values += query.tags.map { .text($0) }
        }
        values.append(.int(query.limit + 1))
        let sql = Self.selectEntry + " WHERE " + conditions.joined(separator: " AND ") + " ORDER BY seq DESC LIMIT ?"
        let rows = try guarded("list") {
            try database.read { try $0.query(sql, values) { (id: $0.int64(24), entry: try Self.entry($0)) } }
        }
        let page = rows.prefix(query.limit)
        let next = rows.count > query.limit ? page.last.map { CacheEntryQuery.cursor(after: $0.id) } : nil
        return CacheEntryPage(entries: page.map(\.entry), nextCursor: next)
    }
}
