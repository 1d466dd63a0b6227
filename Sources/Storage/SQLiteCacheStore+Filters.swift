public import CacheCore

extension SQLiteCacheStore {
    public func loadFilterChain() throws -> FilterChainRecord {
        try guarded("load filters") {
            try database.read { connection in
                let version =
                    try connection.queryFirst("SELECT version FROM filter_chain WHERE id = 1") { $0.int(0) } ?? 0
                let filters = try connection.query("SELECT name, json FROM filter ORDER BY position") {
                    FilterRecord(name: $0.text(0) ?? "", json: $0.text(1) ?? "")
                }
                return FilterChainRecord(version: version, filters: filters)
            }
        }
    }

    @discardableResult
    public func saveFilterChain(_ filters: [FilterRecord], expectedVersion: Int?) throws -> FilterChainRecord {
        try FilterChainRecord.validate(filters)
        return try guarded("save filters") {
            try database.write { connection in
                var saved = FilterChainRecord(version: 0, filters: filters)
                try connection.inTransaction {
                    let current =
                        try connection.queryFirst("SELECT version FROM filter_chain WHERE id = 1") { $0.int(0) } ?? 0
                    if let expectedVersion, expectedVersion != current {
                        throw CacheStoreError.versionConflict(current: current)
                    }
                    try connection.run("DELETE FROM filter")
                    for (position, filter) in filters.enumerated() {
                        try connection.run(
                            "INSERT INTO filter (position, name, json) VALUES (?, ?, ?)",
                            [.int(position), .text(filter.name), .text(filter.json)])
                    }
                    saved.version = current + 1
                    try connection.run("UPDATE filter_chain SET version = ? WHERE id = 1", [.int(saved.version)])
                    return .commit
                }
                return saved
            }
        }
    }
}
