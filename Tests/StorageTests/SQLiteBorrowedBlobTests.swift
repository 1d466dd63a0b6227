import TestSupport
import Testing

@testable import Storage

/// A blob bound in place (`SQLiteConnection.run(_:_:borrowing:)`, how a chunk is inserted): SQLite reads the
/// caller's bytes without a copy of its own, so the row must hold what they were during the call, whatever
/// the caller does with its memory afterwards.
@Suite struct SQLiteBorrowedBlobTests {
    static let insert = SQLiteQuery("INSERT INTO t (id, data) VALUES (?, ?)")

    @Test func aBorrowedBlobIsStoredAsItWasDuringTheCall() throws {
        let directory = StorageTestDirectory()
        let connection = try SQLiteConnection(path: directory.file(), readOnly: false)
        try connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, data BLOB NOT NULL)")
        // Larger than a page, so the row spills into overflow pages, as a chunk does.
        let pattern = (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: pattern.count, alignment: 1)
        defer { memory.deallocate() }
        memory.copyBytes(from: pattern)
        #expect(try connection.run(Self.insert, [.integer(1)], borrowing: UnsafeRawBufferPointer(memory)) == 1)
        // The same memory, rewritten and bound again: the first row keeps the first bytes.
        memory.initializeMemory(as: UInt8.self, repeating: 0xAA)
        #expect(try connection.run(Self.insert, [.integer(2)], borrowing: UnsafeRawBufferPointer(memory)) == 1)
        // No bytes is an empty blob, not NULL (which the column refuses).
        #expect(
            try connection.run(Self.insert, [.integer(3)], borrowing: UnsafeRawBufferPointer(start: nil, count: 0)) == 1
        )

        let rows = try connection.query("SELECT id, data, typeof(data) FROM t ORDER BY id") {
            ($0.int(0), $0.blob(1), $0.text(2))
        }
        #expect(rows.map(\.0) == [1, 2, 3])
        #expect(rows.first?.1 == pattern)
        #expect(rows.dropFirst().first?.1 == [UInt8](repeating: 0xAA, count: pattern.count))
        #expect(rows.last?.1 == [] && rows.last?.2 == "blob")
    }

    /// A statement that fails leaves nothing bound: the next run with every parameter works as if it were the
    /// first.
    @Test func aFailedRunLetsGoOfItsBytes() throws {
        let directory = StorageTestDirectory()
        let connection = try SQLiteConnection(path: directory.file(), readOnly: false)
        try connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, data BLOB NOT NULL)")
        let bytes: [UInt8] = [1, 2, 3]
        _ = try bytes.withUnsafeBytes { try connection.run(Self.insert, [.integer(1)], borrowing: $0) }
        // The same id again: a constraint error, thrown after the bytes were bound.
        #expect(throws: SQLiteError.self) {
            _ = try bytes.withUnsafeBytes { try connection.run(Self.insert, [.integer(1)], borrowing: $0) }
        }
        let other: [UInt8] = [9, 8]
        _ = try other.withUnsafeBytes { try connection.run(Self.insert, [.integer(2)], borrowing: $0) }
        let rows = try connection.query("SELECT data FROM t ORDER BY id") { $0.blob(0) }
        #expect(rows == [bytes, other])
    }
}
