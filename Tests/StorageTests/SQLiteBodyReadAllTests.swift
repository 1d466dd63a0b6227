import CacheCore
import Foundation
import TestSupport
import Testing

@testable import Storage

/// `readAll()`, the one-copy read of a whole body: the same bytes as `next()` gives, in every form and
/// codec, and the same checks (a damaged identity body is detected and its entry deleted).
@Suite struct SQLiteBodyReadAllTests {
    static let chunk = StorageTestHarness.chunkSize

    @Test(arguments: [0, 1, chunk, chunk + 1, 3 * chunk, 3 * chunk + 17], [false, true])
    func readAllGivesWhatNextGives(size: Int, compressible: Bool) throws {
        let harness = try StorageTestHarness()
        let body =
            compressible
            ? CacheCoreFixtures.compressibleBody(length: size)
            : CacheCoreFixtures.randomBody(length: size)
        let stored = try harness.put(CacheCoreFixtures.makeEntry(), body)
        let gzip: [CacheBodyForm] = stored.codec == .deflateChunked ? [.gzip] : []
        for form in [CacheBodyForm.identity, .range(size / 3..<size)] + gzip {
            let reader = try harness.store.openBody(of: stored, form: form)
            let whole = try reader.readAll()
            #expect(whole == (try harness.read(stored, form)), "\(form)")
            #expect(whole.count == reader.length)
            #expect(try reader.next() == nil)
        }
        #expect(try harness.store.openBody(of: stored, form: .identity).readAll() == body)
    }

    @Test func aReaderAlreadyReadFromGivesTheRest() throws {
        let harness = try StorageTestHarness()
        let body = CacheCoreFixtures.randomBody(length: 3 * Self.chunk + 5)
        let stored = try harness.put(CacheCoreFixtures.makeEntry(), body)
        let reader = try harness.store.openBody(of: stored, form: .identity)
        let first = try #require(try reader.next())
        #expect(first + (try reader.readAll()) == body)
    }

    enum Damage: String, CaseIterable, Sendable {
        case flippedByteInMiddleChunk
        case middleChunkShorterWithMatchingCRC
        case lastChunkLongerWithMatchingCRC
        case wrongBodyCRC
        case missingMiddleChunk
        case missingLastChunk
    }

    @Test(arguments: Damage.allCases)
    func damageToAnIdentityBodyIsDetectedAndTheEntryDeleted(damage: Damage) throws {
        let harness = try StorageTestHarness()
        let stored = try harness.put(
            CacheCoreFixtures.makeEntry(), CacheCoreFixtures.randomBody(length: 3 * Self.chunk - 100))
        try #require(stored.codec == .identity)
        let id = { (chunk: Int64) in Self.chunkID(stored, chunk) }
        switch damage {
        case .flippedByteInMiddleChunk:
            try harness.sql("UPDATE chunk SET data = zeroblob(length(data)) WHERE id = ?", [id(1)])
        case .middleChunkShorterWithMatchingCRC:
            try Self.rewrite(chunk: 1, of: stored, in: harness) { Array($0.dropLast(1)) }
        case .lastChunkLongerWithMatchingCRC: try Self.rewrite(chunk: 2, of: stored, in: harness) { $0 + [0x2A] }
        case .wrongBodyCRC: try harness.sql("UPDATE entry SET crc32 = (crc32 + 1) % 4294967296")
        case .missingMiddleChunk: try harness.sql("DELETE FROM chunk WHERE id = ?", [id(1)])
        case .missingLastChunk: try harness.sql("DELETE FROM chunk WHERE id = ?", [id(2)])
        }
        try Self.expectCorruptionFound(stored, form: .identity, in: harness)
    }

    enum GzipDamage: String, CaseIterable, Sendable {
        case flippedByteInLastChunk
        case middleChunkLongerWithMatchingCRC
        case lastChunkShorterWithMatchingCRC
        case missingLastChunk
    }

    /// The gzip form sends the stored deflate stream as it is, so the checks are the chunks' CRC-32 and
    /// their sizes against the stored size: a chunk that would overrun it, or chunks that fall short of
    /// it, are corruption, never a short or overlong answer.
    @Test(arguments: GzipDamage.allCases)
    func damageToAGzipReadIsDetectedAndTheEntryDeleted(damage: GzipDamage) throws {
        let harness = try StorageTestHarness()
        let stored = try harness.put(
            CacheCoreFixtures.makeEntry(), CacheCoreFixtures.compressibleBody(length: 3 * Self.chunk - 100))
        try #require(stored.codec == .deflateChunked)
        let id = { (chunk: Int64) in Self.chunkID(stored, chunk) }
        switch damage {
        case .flippedByteInLastChunk:
            try harness.sql("UPDATE chunk SET data = zeroblob(length(data)) WHERE id = ?", [id(2)])
        case .middleChunkLongerWithMatchingCRC:
            try Self.rewrite(chunk: 1, of: stored, in: harness) { $0 + [0x2A, 0x2A] }
        case .lastChunkShorterWithMatchingCRC:
            try Self.rewrite(chunk: 2, of: stored, in: harness) { Array($0.dropLast(1)) }
        case .missingLastChunk: try harness.sql("DELETE FROM chunk WHERE id = ?", [id(2)])
        }
        try Self.expectCorruptionFound(stored, form: .gzip, in: harness)
    }

    /// An entry deleted after its reader was opened (its first chunk loaded) is gone, not corrupt: the
    /// read says `notFound`, so the caller fetches again, and nothing is counted as damage.
    @Test(arguments: [CacheBodyForm.identity, .gzip])
    func anEntryDeletedWhileItIsReadIsNotFound(form: CacheBodyForm) throws {
        let harness = try StorageTestHarness()
        let body = CacheCoreFixtures.compressibleBody(length: 3 * Self.chunk + 17)
        let stored = try harness.put(CacheCoreFixtures.makeEntry(), body)
        let reader = try harness.store.openBody(
            of: stored, form: form == .gzip && stored.codec == .deflateChunked ? .gzip : .identity)
        try #require(try harness.store.delete(stored))
        #expect {
            _ = try reader.readAll()
        } throws: { error in
            guard case CacheStoreError.notFound(let key) = error else { return false }
            return key == stored.key
        }
    }

    static func chunkID(_ stored: StoredEntry, _ chunk: Int64) -> SQLiteValue {
        .integer(stored.bodyID << StorageSchema.chunkIDShift | chunk)
    }

    /// Replaces one chunk of `stored`'s body by `change` of its bytes, with a CRC-32 that matches them.
    static func rewrite(
        chunk: Int64, of stored: StoredEntry, in harness: StorageTestHarness, _ change: ([UInt8]) -> [UInt8]
    ) throws {
        let old = try harness.store.database.read {
            try $0.queryFirst("SELECT data FROM chunk WHERE id = ?", [chunkID(stored, chunk)]) { $0.blob(0) } ?? []
        }
        let new = change(old)
        try harness.sql(
            "UPDATE chunk SET data = ?, crc32 = ? WHERE id = ?",
            [.blob(new), .integer(Int64(ReferenceCRC32.checksum(new))), chunkID(stored, chunk)])
    }

    /// Reads `stored` whole in `form` and expects the read to find it corrupt, and its entry and chunks gone.
    static func expectCorruptionFound(_ stored: StoredEntry, form: CacheBodyForm, in harness: StorageTestHarness) throws
    {
        let entry = try #require(try harness.store.entry(for: stored.key))
        #expect {
            _ = try harness.store.openBody(of: entry, form: form).readAll()
        } throws: { error in
            guard case CacheStoreError.corruptEntryDeleted(let key, _) = error else { return false }
            return key == stored.key
        }
        #expect(try harness.store.entry(for: stored.key) == nil)
        #expect(try harness.count("SELECT count(*) FROM chunk") == 0)
    }
}
