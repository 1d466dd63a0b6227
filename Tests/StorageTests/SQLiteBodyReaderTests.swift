import CacheCore
import Foundation
import TestSupport
import Testing

@testable import Storage

/// Each kind of stored corruption is detected on read, deletes its entry and reports it; nothing crashes.
@Suite struct SQLiteBodyReaderTests {
    static let chunk = StorageTestHarness.chunkSize

    enum Damage: String, CaseIterable, Sendable {
        case flippedByteInStoredChunk
        case flippedByteWithMatchingChunkCRC
        case truncatedMiddleChunk
        case truncatedLastChunk
        case wrongBodyCRC
        case wrongRecordedLength
        case trailingBytesAfterStream
        case secondStreamAfterTheFirst
        case middleChunkInflatesToMore
        case lastChunkInflatesToMore
        case middleChunkEndsTheStream
        case missingChunk
    }

    /// Rewrites a chunk with a matching CRC, so that only the inflate and length checks can catch it.
    private func replace(_ harness: StorageTestHarness, _ entry: StoredEntry, chunk: Int, with bytes: [UInt8]) throws {
        try harness.sql(
            "UPDATE chunk SET data = ?, crc32 = ? WHERE id = ?",
            [
                .blob(bytes), .integer(Int64(ReferenceCRC32.checksum(bytes))),
                .integer(entry.bodyID << StorageSchema.chunkIDShift | Int64(chunk)),
            ])
    }

    private func storedChunk(_ harness: StorageTestHarness, _ entry: StoredEntry, _ chunk: Int) throws -> [UInt8] {
        try harness.store.database.read {
            try $0.queryFirst(
                "SELECT data FROM chunk WHERE id = ?",
                [.integer(entry.bodyID << StorageSchema.chunkIDShift | Int64(chunk))]
            ) { $0.blob(0) } ?? []
        }
    }

    private func damage(_ damage: Damage, _ harness: StorageTestHarness, _ entry: StoredEntry) throws {
        let middle = try storedChunk(harness, entry, 1)
        let last = try storedChunk(harness, entry, 2)
        switch damage {
        case .flippedByteInStoredChunk:
            var bytes = middle
            bytes[bytes.count / 2] ^= 0x40
            try harness.sql(
                "UPDATE chunk SET data = ? WHERE id = ?",
                [.blob(bytes), .integer(entry.bodyID << StorageSchema.chunkIDShift | 1)])
        case .flippedByteWithMatchingChunkCRC:
            var bytes = middle
            bytes[bytes.count / 3] ^= 0x01
            try replace(harness, entry, chunk: 1, with: bytes)
        case .truncatedMiddleChunk: try replace(harness, entry, chunk: 1, with: Array(middle.dropLast(9)))
        case .truncatedLastChunk: try replace(harness, entry, chunk: 2, with: Array(last.dropLast(3)))
        case .wrongBodyCRC: try harness.sql("UPDATE entry SET crc32 = (crc32 + 1) % 4294967296")
        case .wrongRecordedLength: try harness.sql("UPDATE entry SET original_size = original_size - 1")
        case .trailingBytesAfterStream: try replace(harness, entry, chunk: 2, with: last + [0x00, 0x00])
        case .secondStreamAfterTheFirst:
            let evil = try ChunkDeflater().deflateChunk(ArraySlice(repeating: 0x41, count: 100), isLast: true)
            try replace(harness, entry, chunk: 2, with: last + evil)
        case .middleChunkInflatesToMore:
            let bomb = try ChunkDeflater().deflateChunk(ArraySlice(repeating: 0, count: 50 * Self.chunk), isLast: false)
            try replace(harness, entry, chunk: 1, with: bomb)
        case .lastChunkInflatesToMore:
            let bomb = try ChunkDeflater().deflateChunk(ArraySlice(repeating: 0, count: 50 * Self.chunk), isLast: true)
            try replace(harness, entry, chunk: 2, with: bomb)
        case .middleChunkEndsTheStream:
            let early = try ChunkDeflater().deflateChunk(ArraySlice(repeating: 0x41, count: Self.chunk), isLast: true)
            try replace(harness, entry, chunk: 1, with: early + [0x00, 0x00, 0xFF, 0xFF])
        case .missingChunk:
            try harness.sql(
                "DELETE FROM chunk WHERE id = ?", [.integer(entry.bodyID << StorageSchema.chunkIDShift | 1)])
        }
    }

    @Test(arguments: Damage.allCases)
    func corruptionIsDetectedAndTheEntryDeleted(damage kind: Damage) throws {
        let harness = try StorageTestHarness()
        let body = CacheCoreFixtures.compressibleBody(length: 2 * Self.chunk + 1000)
        let stored = try harness.put(CacheCoreFixtures.makeEntry(), body)
        try #require(stored.codec == .deflateChunked)
        try damage(kind, harness, stored)
        let entry = try #require(try harness.store.entry(for: stored.key))
        #expect {
            _ = try harness.read(entry)
        } throws: { error in
            guard case CacheStoreError.corruptEntryDeleted(let key, _) = error else { return false }
            return key == stored.key
        }
        #expect(try harness.store.entry(for: stored.key) == nil)
        #expect(try harness.store.stats().entryCount == 0)
        #expect(try harness.count("SELECT count(*) FROM chunk") == 0)
    }

    @Test(arguments: [true, false])
    func corruptChunkIsDetectedByARangeRead(compressible: Bool) throws {
        let harness = try StorageTestHarness()
        let body =
            compressible
            ? CacheCoreFixtures.compressibleBody(length: 3 * Self.chunk)
            : CacheCoreFixtures.randomBody(length: 3 * Self.chunk)
        let stored = try harness.put(CacheCoreFixtures.makeEntry(), body)
        try replace(harness, stored, chunk: 1, with: Array(try storedChunk(harness, stored, 1).dropLast(1)))
        #expect(throws: CacheStoreError.self) { _ = try harness.read(stored, .range(Self.chunk + 1..<Self.chunk + 2)) }
        #expect(try harness.store.entry(for: stored.key) == nil)
    }

    @Test func truncatedIdentityChunkIsDetected() throws {
        let harness = try StorageTestHarness()
        let stored = try harness.put(
            CacheCoreFixtures.makeEntry(), CacheCoreFixtures.randomBody(length: 2 * Self.chunk + 5))
        try #require(stored.codec == .identity)
        try replace(harness, stored, chunk: 0, with: Array(try storedChunk(harness, stored, 0).dropLast(1)))
        #expect(throws: CacheStoreError.self) { _ = try harness.read(stored) }
        #expect(try harness.store.entry(for: stored.key) == nil)
    }

    @Test func readerOfAReplacedEntrySeesNotFoundNotTheNewBytes() throws {
        let harness = try StorageTestHarness()
        let old = try harness.put(CacheCoreFixtures.makeEntry(), CacheCoreFixtures.randomBody(length: 3 * Self.chunk))
        let reader = try harness.store.openBody(of: old, form: .identity)
        _ = try reader.next()
        try harness.put(CacheCoreFixtures.makeEntry(), CacheCoreFixtures.randomBody(length: 3 * Self.chunk, seed: 9))
        #expect(throws: CacheStoreError.notFound(old.key)) { _ = try reader.next() }
        #expect(throws: CacheStoreError.notFound(old.key)) { _ = try harness.store.openBody(of: old, form: .identity) }
        #expect(try harness.store.entry(for: old.key) != nil)
    }
}
