public import CacheCore
import FoundationEssentials
import Zlib

extension SQLiteCacheStore {
    /// Stores many small entries in few transactions, each body one identity chunk: for benchmarks and
    /// tools that need a store of a million entries in seconds (`Benchmarks/purge`), not for serving (it
    /// skips the compression decision, the commit group and eviction). Each entry is written as a commit
    /// writes it (`SQLiteCommitGroup.apply`: the row, its tags, its `Vary` names).
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
                    var varyKeys: [CacheKey] = []
                    try connection.inTransaction {
                        var counters = try SQLiteCommitCounters(reading: connection)
                        for _ in 0..<max(1, transactionSize) {
                            guard let (entry, body) = iterator.next() else {
                                done = true
                                break
                            }
                            let crc = CRC32.checksum(body)
                            let job = SQLiteCommitJob(
                                entry: entry,
                                facts: StoredBodyFacts(
                                    originalSize: body.count, storedSize: body.count, codec: .identity,
                                    crc32: crc, chunkSize: configuration.chunkSize),
                                lastChunk: body.isEmpty ? nil : (body, 0, crc), pendingBody: nil,
                                purgeGeneration: purgeLog.generation, now: configuration.clock(), completion: { _ in })
                            _ = try SQLiteCommitGroup.apply(
                                job, connection: connection, in: self, counters: &counters, varyKeys: &varyKeys)
                        }
                        try counters.write(connection)
                        return .commit
                    }
                    varyMemo.forget(varyKeys)
                }
            }
        }
    }
}
