import CacheCore
import Foundation
import TestSupport
import Testing

@testable import Storage

/// A store in a fresh temporary directory, with small chunks so that multi-chunk bodies stay small.
final class StorageTestHarness {
    static let chunkSize = 4096
    let directory = StorageTestDirectory()
    let store: SQLiteCacheStore

    init(
        maxSize: Int? = nil, chunkSize: Int = StorageTestHarness.chunkSize,
        hitLogCapacity: Int = SQLiteCacheStore.Configuration.defaultHitLogCapacity,
        clock: @escaping @Sendable () -> Date = { CacheCoreFixtures.epoch }, filtersKeys: Bool = true,
        deflateLevel: Int32? = nil
    ) throws {
        var configuration = SQLiteCacheStore.Configuration(
            path: directory.file(), maxSize: maxSize, chunkSize: chunkSize, hitLogCapacity: hitLogCapacity,
            clock: clock)
        configuration.filtersKeys = filtersKeys
        if let deflateLevel { configuration.deflateLevel = deflateLevel }
        store = try SQLiteCacheStore(configuration: configuration)
    }

    /// Stores a body, appended in uneven pieces as a socket would deliver it.
    @discardableResult
    func put(_ entry: StoredEntry, _ body: [UInt8], pieceSize: Int = 1500) throws -> StoredEntry {
        let writer = try store.beginWrite(hints: CacheBodyHints(headers: entry.headers))
        var offset = 0
        while offset < body.count {
            let end = min(offset + pieceSize, body.count)
            try writer.append(Array(body[offset..<end]))
            offset = end
        }
        return try writer.commit(entry)
    }

    func read(_ entry: StoredEntry, _ form: CacheBodyForm = .identity) throws -> [UInt8] {
        let reader = try store.openBody(of: entry, form: form)
        var out = [UInt8]()
        while let piece = try reader.next() {
            #expect(!piece.isEmpty)
            out += piece
        }
        #expect(out.count == reader.length)
        return out
    }

    /// Runs SQL on the store's writer connection (to tamper with stored bytes).
    func sql(_ text: String, _ values: [SQLiteValue] = []) throws {
        _ = try store.database.write { try $0.run(text, values) }
    }

    func count(_ sql: String) throws -> Int {
        try store.database.read { try $0.queryFirst(sql) { $0.int(0) } ?? -1 }
    }
}

/// Runs a command found on `PATH` (through `/usr/bin/env`) and returns its exit status and standard output.
func runProcess(_ arguments: [String]) throws -> (status: Int32, output: Data) {
    let process = try ChildProcess("/usr/bin/env", arguments, standardOutput: .pipe)
    let (status, output) = process.communicate()
    return (status, Data(output))
}
