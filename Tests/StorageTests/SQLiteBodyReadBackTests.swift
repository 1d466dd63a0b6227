import CacheCore
import Foundation
import TestSupport
import Testing

@testable import Storage

/// A body being written can be read back chunk by chunk before its commit (what a late caller of a
/// fetch in flight reads), checked as a stored body is; an abandoned or damaged one is never handed out.
@Suite struct SQLiteBodyReadBackTests {
    static let chunk = StorageTestHarness.chunkSize

    /// Writes `body` in uneven pieces and returns the open writer.
    private func write(_ harness: StorageTestHarness, _ body: [UInt8]) throws -> any ReadableBodyWriter {
        let writer = try #require(try harness.store.beginWrite(hints: CacheBodyHints()) as? any ReadableBodyWriter)
        for start in stride(from: 0, to: body.count, by: 1500) {
            try writer.append(Array(body[start..<min(body.count, start + 1500)]))
        }
        return writer
    }

    /// Reads back everything readable from `offset`, a chunk's rest at a time.
    private func readBack(_ writer: any ReadableBodyWriter, from offset: Int = 0) throws -> [UInt8] {
        var out: [UInt8] = []
        while offset + out.count < writer.readableBytes {
            let piece = try writer.readWritten(at: offset + out.count)
            #expect(!piece.isEmpty)
            out += piece
        }
        return out
    }

    @Test(arguments: ["text", "random"])
    func whatIsWrittenReadsBackExactlyBeforeAndAfterTheCommit(kind: String) throws {
        let harness = try StorageTestHarness()
        // Text is stored deflated (each chunk inflated on its own), random bytes as they came.
        let body =
            kind == "text"
            ? CacheCoreFixtures.compressibleBody(length: 10 * Self.chunk + 123)
            : CacheCoreFixtures.randomBody(length: 10 * Self.chunk + 123)
        let writer = try write(harness, body)
        // Whole chunks only, and never the last one: it is written by the commit.
        #expect(writer.readableBytes % Self.chunk == 0)
        #expect(writer.readableBytes >= body.count - 2 * Self.chunk)
        #expect(sameBytes(try readBack(writer), body[..<writer.readableBytes]))
        #expect(sameBytes(try readBack(writer, from: 1000), body[1000..<writer.readableBytes]))
        let entry = try writer.commit(CacheCoreFixtures.makeEntry(url: "https://example.com/\(kind)"))
        #expect(entry.codec == (kind == "text" ? .deflateChunked : .identity))
        #expect(sameBytes(try readBack(writer), body[..<writer.readableBytes]))
    }

    @Test func anAbandonedBodyIsGone() throws {
        let harness = try StorageTestHarness()
        let writer = try write(harness, CacheCoreFixtures.randomBody(length: 5 * Self.chunk))
        #expect(writer.readableBytes > 0)
        writer.abandon()
        #expect(writer.readableBytes == 0)
        #expect(throws: CacheStoreError.writerClosed) { try writer.readWritten(at: 0) }
    }

    @Test func anOffsetNotYetWrittenIsRefused() throws {
        let harness = try StorageTestHarness()
        let writer = try write(harness, CacheCoreFixtures.randomBody(length: 3 * Self.chunk + 10))
        #expect(throws: CacheStoreError.writerClosed) { try writer.readWritten(at: writer.readableBytes) }
        #expect(throws: CacheStoreError.writerClosed) { try writer.readWritten(at: -1) }
        writer.abandon()
    }

    @Test func aDamagedChunkIsNeverHandedOut() throws {
        let harness = try StorageTestHarness()
        let writer = try write(harness, CacheCoreFixtures.randomBody(length: 5 * Self.chunk))
        try harness.sql("UPDATE chunk SET data = zeroblob(length(data))")
        #expect {
            try writer.readWritten(at: Self.chunk)
        } throws: { error in
            guard case CacheStoreError.storageFailure(_, let detail) = error else { return false }
            return detail.contains("CRC-32")
        }
        writer.abandon()
    }
}
