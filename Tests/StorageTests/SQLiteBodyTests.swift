import CacheCore
import Foundation
import TestSupport
import Testing

@testable import Storage

/// Round trips of bodies through the store: identity, gzip (checked by Python's zlib), and ranges.
@Suite struct SQLiteBodyTests {
    static let chunk = StorageTestHarness.chunkSize
    static let sizes = [0, 1, chunk - 1, chunk, chunk + 1, 2 * chunk, 5 * chunk + 17]

    static func body(size: Int, compressible: Bool) -> [UInt8] {
        compressible
            ? CacheCoreFixtures.compressibleBody(length: size, seed: UInt64(size))
            : CacheCoreFixtures.randomBody(length: size, seed: UInt64(size))
    }

    @Test(arguments: sizes, [true, false])
    func identityRoundTripIsByteForByte(size: Int, compressible: Bool) throws {
        let harness = try StorageTestHarness()
        let body = Self.body(size: size, compressible: compressible)
        let stored = try harness.put(CacheCoreFixtures.makeEntry(), body)
        #expect(stored.originalSize == size)
        #expect(stored.crc32 == ReferenceCRC32.checksum(body))
        #expect(stored.chunkSize == Self.chunk)
        // Text this repetitive deflates far below 90%; random bytes never do.
        let expectCompressed = compressible && size > 64
        #expect(stored.codec == (expectCompressed ? .deflateChunked : .identity))
        if stored.codec == .identity {
            #expect(stored.storedSize == size)
        } else {
            #expect(stored.storedSize < size / 2)
        }
        let found = try #require(try harness.store.entry(for: stored.key))
        #expect(found == stored)
        #expect(try sameBytes(harness.read(found), body))
    }

    /// The stored format pins the values: the body's and each chunk's CRC-32 are the standard ones
    /// (the check value of "123456789"), whichever implementation computes them.
    @Test func storedChecksumsAreTheStandardCRC32Values() throws {
        let harness = try StorageTestHarness()
        let stored = try harness.put(CacheCoreFixtures.makeEntry(), Array("123456789".utf8))
        #expect(stored.codec == .identity && stored.crc32 == 0xCBF4_3926)
        let chunkCRC = try harness.store.database.read {
            try $0.queryFirst(
                "SELECT crc32 FROM chunk WHERE id = ?", [.integer(stored.bodyID << StorageSchema.chunkIDShift)]
            ) { $0.int64(0) }
        }
        #expect(chunkCRC == 0xCBF4_3926)
    }

    @Test(arguments: sizes.filter { $0 > 64 })
    func gzipFormIsOneValidGzipMemberForAnIndependentDecoder(size: Int) throws {
        let harness = try StorageTestHarness()
        let body = Self.body(size: size, compressible: true)
        let stored = try harness.put(CacheCoreFixtures.makeEntry(), body)
        try #require(stored.codec == .deflateChunked)
        let gzip = try harness.read(stored, .gzip)
        #expect(gzip.count == stored.storedSize + 18)
        let file = harness.directory.file("body.gz")
        try Data(gzip).write(to: URL(fileURLWithPath: file))
        // Strict: exactly one member, nothing after it; Python's zlib checks CRC-32 and ISIZE itself.
        let script = """
            import sys, zlib
            data = open(sys.argv[1], 'rb').read()
            d = zlib.decompressobj(31)
            out = d.decompress(data)
            assert d.eof and not d.unused_data, 'not exactly one gzip member'
            sys.stdout.buffer.write(out)
            """
        let result = try runProcess(["python3", "-c", script, file])
        #expect(result.status == 0)
        #expect(sameBytes(Array(result.output), body))
    }

    @Test func gzipIsUnavailableForIdentityBodies() throws {
        let harness = try StorageTestHarness()
        let stored = try harness.put(CacheCoreFixtures.makeEntry(), Self.body(size: 100, compressible: false))
        #expect(throws: CacheStoreError.formUnavailable) { try harness.store.openBody(of: stored, form: .gzip) }
    }

    @Test(arguments: [true, false])
    func everyRangeAtChunkEdgesIsExact(compressible: Bool) throws {
        let harness = try StorageTestHarness()
        let size = 3 * Self.chunk + 100
        let body = Self.body(size: size, compressible: compressible)
        let stored = try harness.put(CacheCoreFixtures.makeEntry(), body)
        let edges = [
            0, 1, Self.chunk - 1, Self.chunk, Self.chunk + 1, 2 * Self.chunk, 3 * Self.chunk - 1,
            3 * Self.chunk, size - 1, size,
        ]
        for lower in edges {
            for upper in edges where upper >= lower {
                #expect(
                    try harness.read(stored, .range(lower..<upper)) == Array(body[lower..<upper]), "\(lower)..<\(upper)"
                )
            }
        }
        #expect(throws: CacheStoreError.invalidRange(0..<size + 1, length: size)) {
            try harness.store.openBody(of: stored, form: .range(0..<size + 1))
        }
    }

    @Test func rangeReadTouchesOnlyCoveringChunks() throws {
        let harness = try StorageTestHarness()
        let body = Self.body(size: 4 * Self.chunk, compressible: true)
        let stored = try harness.put(CacheCoreFixtures.makeEntry(), body)
        // Ruin chunk 0 and 3: a range inside chunks 1–2 must still read, proving they are not touched.
        let first = stored.bodyID << StorageSchema.chunkIDShift
        try harness.sql("UPDATE chunk SET data = x'00' WHERE id IN (?, ?)", [.integer(first), .integer(first + 3)])
        let range = Self.chunk + 10..<3 * Self.chunk - 10
        #expect(try sameBytes(harness.read(stored, .range(range)), Array(body[range])))
    }

    @Test func alreadyCompressedTypesAndEncodedBodiesAreStoredAsTheyCame() throws {
        let harness = try StorageTestHarness()
        let text = Self.body(size: 10_000, compressible: true)
        let jpeg = try harness.put(
            CacheCoreFixtures.makeEntry(url: "https://e.example/a.jpg", contentType: "image/jpeg"), text)
        #expect(jpeg.codec == .identity)
        let encoded = try harness.put(
            CacheCoreFixtures.makeEntry(url: "https://e.example/b", extraHeaders: [("Content-Encoding", "br")]), text)
        #expect(encoded.codec == .identity)
        #expect(try harness.read(jpeg) == text)
    }

    @Test func writerHoldsAtMostAboutAChunkWhateverTheBodySize() throws {
        // Many chunks appended one byte at a time still round-trip, through the flush-when-over-a-chunk path.
        let harness = try StorageTestHarness()
        let body = Self.body(size: 2 * Self.chunk + 3, compressible: true)
        let stored = try harness.put(CacheCoreFixtures.makeEntry(), body, pieceSize: 1)
        #expect(try sameBytes(harness.read(stored), body))
        let big = Self.body(size: 7 * Self.chunk, compressible: false)
        let second = try harness.put(
            CacheCoreFixtures.makeEntry(url: "https://e.example/big"), big, pieceSize: 3 * Self.chunk + 5)
        #expect(try harness.read(second) == big)
        #expect(try harness.count("SELECT count(*) FROM chunk") == 3 + 7)
    }

    /// A body handed over in one piece is kept as that array until its commit, not copied: the fetch keeps
    /// the same piece for callers who join late, so the bytes are held once. A second piece makes the writer
    /// a buffer of its own, and a piece over a chunk is written out as before; every body reads back.
    @Test func aBodyHandedOverInOnePieceIsHeldNotCopied() throws {
        let harness = try StorageTestHarness()
        func writer() throws -> SQLiteBodyWriter {
            try #require(try harness.store.beginWrite(hints: CacheBodyHints()) as? SQLiteBodyWriter)
        }
        let piece = CacheCoreFixtures.randomBody(length: 3000, seed: 21)
        let whole = try writer()
        try whole.append(piece)
        #expect(whole.holdsStorage(of: piece))
        let stored = try whole.commit(CacheCoreFixtures.makeEntry(url: "https://e.example/one"))
        #expect(try harness.read(stored) == piece)

        let more = CacheCoreFixtures.randomBody(length: 500, seed: 22)
        let two = try writer()
        try two.append(piece)
        try two.append(more)
        #expect(!two.holdsStorage(of: piece))
        #expect(
            try harness.read(try two.commit(CacheCoreFixtures.makeEntry(url: "https://e.example/two"))) == piece + more)

        let large = CacheCoreFixtures.randomBody(length: 2 * Self.chunk + 10, seed: 23)
        let over = try writer()
        try over.append(large)
        #expect(!over.holdsStorage(of: large))
        #expect(try harness.read(try over.commit(CacheCoreFixtures.makeEntry(url: "https://e.example/large"))) == large)
    }

    /// Body ids come from one counter, in the commit's transaction, whether the body was one chunk (no
    /// pending row) or several: they only grow, also across a reopen, so no reader of an old id ever gets
    /// another body's bytes, and a one-chunk commit leaves no pending row behind.
    @Test func bodyIDsOnlyGrowWhateverTheBodyAndAcrossAReopen() throws {
        let directory = StorageTestDirectory()
        let path = directory.file()
        var ids: [Int64] = []
        for round in 0..<2 {
            let store = try SQLiteCacheStore(configuration: .init(path: path, chunkSize: Self.chunk))
            for (index, size) in [10, 3 * Self.chunk + 5, 0, Self.chunk, 7].enumerated() {
                let url = "https://example.com/\(round)/\(index)"
                let writer = try store.beginWrite(hints: CacheBodyHints())
                try writer.append(Self.body(size: size, compressible: false))
                let stored = try writer.commit(CacheCoreFixtures.makeEntry(url: url))
                ids.append(stored.bodyID)
                // Replacing an entry drops its body; its id is never handed out again.
                if index == 0 { _ = try store.delete(stored.key) }
            }
            let pending = try store.database.read {
                try $0.queryFirst("SELECT count(*) FROM pending_body") { $0.int(0) }
            }
            #expect(pending == 0)
        }
        #expect(ids == ids.sorted() && Set(ids).count == ids.count, "\(ids)")
    }
}
