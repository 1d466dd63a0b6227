public import CacheCore
import Foundation
import Zlib

extension SQLiteCacheStore {
    /// Stores many small entries in few transactions, each body one identity chunk: for benchmarks and
    /// tools that need a store of a million entries in seconds (`Benchmarks/purge`), not for serving (it
    /// skips the compression decision, the commit group, the purge log and eviction).
    /// - Parameters:
    ///   - entries: the entries with their bodies (each at most one chunk).
    ///   - transactionSize: entries per transaction.
    /// - Throws: `CacheStoreError` when the store cannot be written.
    public func bulkLoad(_ entries: some Sequence<(StoredEntry, [UInt8])>, transactionSize: Int = 10_000) throws {
        var iterator = entries.makeIterator()
        var done = false
        while !done {
            try guarded("bulk load") {
                try database.write { connection in
                    try connection.inTransaction {
                        for _ in 0..<max(1, transactionSize) {
                            guard let (entry, body) = iterator.next() else {
                                done = true
                                break
                            }
                            let bodyID = try SQLiteBodyWriter.nextBodyID(connection)
                            try SQLiteBodyWriter.insertChunk(body, body: bodyID, sequence: 0, connection: connection)
                            var stored = entry
                            stored.setStoredBody(
                                StoredBodyFacts(
                                    originalSize: body.count, storedSize: body.count, codec: .identity,
                                    crc32: CRC32.checksum(body), chunkSize: configuration.chunkSize),
                                bodyID: bodyID, now: configuration.clock())
                            try connection.run("DELETE FROM entry WHERE id = ?", [.integer(Self.rowID(stored.key))])
                            try Self.insert(stored, into: connection)
                        }
                        return .commit
                    }
                }
            }
        }
    }
}
