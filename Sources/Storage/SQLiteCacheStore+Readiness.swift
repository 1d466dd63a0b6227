extension SQLiteCacheStore {
    /// Checks that the database takes writes now, changing nothing: on the writer connection, in a
    /// transaction that is rolled back, it rewrites the filter chain's version with its own value.
    ///
    /// `BEGIN IMMEDIATE` takes the write lock and the `UPDATE` needs a writable file, so a read-only file
    /// or connection (`PRAGMA query_only`, https://sqlite.org/pragma.html#pragma_query_only), a lock held
    /// by another process, or an I/O error fails here. A full disk may not: the rolled-back page never
    /// reaches the file, which is why readiness also counts the last real write that failed.
    /// - Throws: `CacheStoreError` naming the failure.
    public func probeWrite() throws {
        try guarded("readiness probe write") {
            try database.write { connection in
                try connection.inTransaction {
                    try connection.execute("UPDATE filter_chain SET version = version WHERE id = 1")
                    return .rollback
                }
            }
        }
    }
}
