import CSQLite
import CSQLiteBatchedWAL
import Foundation
import TestSupport
import Testing

@testable import Storage

/// The batched-WAL VFS (Sources/CSQLiteBatchedWAL): a transaction's frames reach the WAL in a few writes,
/// every committed transaction is visible to another connection at once, and whatever is not a frame
/// header followed by its page goes to the file as it comes.
@Suite struct SQLiteBatchedWALTests {
    private static func counts() -> (requested: Int64, performed: Int64) {
        var requested: Int64 = 0
        var performed: Int64 = 0
        batched_wal_counts(&requested, &performed)
        return (requested, performed)
    }

    private static func openWAL(_ path: String, pageSize: Int = 4096) throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path, readOnly: false)
        // synchronous = NORMAL as the store has it: a commit does not sync the WAL, so only the VFS's commit
        // rule puts its frames in the file.
        try connection.execute("PRAGMA page_size = \(pageSize); PRAGMA journal_mode = WAL")
        try connection.execute("PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 0")
        try connection.execute("CREATE TABLE IF NOT EXISTS item (id INTEGER PRIMARY KEY, data BLOB NOT NULL)")
        return connection
    }

    @Test func aTransactionsFramesReachTheWALInAFewWrites() throws {
        let directory = StorageTestDirectory()
        let connection = try Self.openWAL(directory.file())
        var random = SplitMix64(seed: 7)
        let before = Self.counts()
        try connection.inTransaction {
            // About 60 pages: two writes a frame without the VFS, three writes of 30 pages with it.
            for id in 0..<60 {
                let data = (0..<3000).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                _ = try connection.run("INSERT INTO item (id, data) VALUES (?, ?)", [.integer(Int64(id)), .blob(data)])
            }
            return .commit
        }
        let after = Self.counts()
        let requested = after.requested - before.requested
        let performed = after.performed - before.performed
        // Other suites write WALs at the same time: the counts are process-wide, so bound rather than equal.
        #expect(requested >= 120)
        #expect(performed * 4 < requested, "\(performed) writes for \(requested) asked")
    }

    @Test(arguments: [4096, 65536])
    func everyCommitIsReadByAnotherConnectionAtOnceAndWhole(pageSize: Int) throws {
        let directory = StorageTestDirectory()
        let path = directory.file()
        let writer = try Self.openWAL(path, pageSize: pageSize)
        let reader = try SQLiteConnection(path: path, readOnly: true)
        var random = SplitMix64(seed: UInt64(pageSize))
        var written: [Int64: [UInt8]] = [:]
        for round in 0..<40 {
            try writer.inTransaction {
                // From one row to several hundred KiB: groups smaller and larger than the VFS's buffer.
                for _ in 0...(round % 7) * 3 {
                    let id = Int64(written.count)
                    let size = Int(random.next() % 40_000) + 1
                    let data = (0..<size).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                    written[id] = data
                    _ = try writer.run("INSERT INTO item (id, data) VALUES (?, ?)", [.integer(id), .blob(data)])
                }
                return .commit
            }
            let read = try reader.query("SELECT id, data FROM item") { ($0.int64(0), $0.blob(1)) }
            #expect(read.count == written.count, "round \(round)")
            for (id, data) in read where written[id] != data { Issue.record("row \(id) differs in round \(round)") }
        }
        let verdict = try reader.query("PRAGMA integrity_check") { $0.text(0) ?? "" }
        #expect(verdict == ["ok"])
    }

    /// The VFS's WAL file driven directly, as SQLite would: what it holds back and when it writes.
    @Test func framesWaitForTheirCommitAndAnythingElseIsWrittenAtOnce() throws {
        let directory = StorageTestDirectory()
        let database = directory.file("direct.db")
        #expect(FileManager.default.createFile(atPath: database, contents: Data()))
        let walPath = database + "-wal"
        // Registered by the process's SQLite setup, which every open in Larder goes through first.
        #expect(SQLiteConnection.processSetup.vfsName == BATCHED_WAL_VFS_NAME)
        let vfs = try #require(sqlite3_vfs_find(BATCHED_WAL_VFS_NAME))
        let file = UnsafeMutableRawPointer.allocate(byteCount: Int(vfs.pointee.szOsFile), alignment: 16)
        defer { file.deallocate() }
        file.initializeMemory(as: UInt8.self, repeating: 0, count: Int(vfs.pointee.szOsFile))
        let handle = file.assumingMemoryBound(to: sqlite3_file.self)
        // A file name as SQLite hands it over: followed by empty URI parameters.
        var name = Array(walPath.utf8CString) + [0, 0, 0]
        var outFlags: Int32 = 0
        let flags = SQLITE_OPEN_WAL | SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        #expect(vfs.pointee.xOpen(vfs, &name, handle, flags, &outFlags) == SQLITE_OK)
        let methods = try #require(handle.pointee.pMethods)
        defer { _ = methods.pointee.xClose(handle) }
        func onDisk() -> Int { (try? FileManager.default.attributesOfItem(atPath: walPath)[.size] as? Int) ?? -1 }
        func write(_ bytes: [UInt8], at offset: Int64) -> Int32 {
            bytes.withUnsafeBytes { methods.pointee.xWrite(handle, $0.baseAddress, Int32($0.count), offset) }
        }
        func header(commit: Bool) -> [UInt8] {
            [0, 0, 0, 1] + (commit ? [0, 0, 0, 9] : [0, 0, 0, 0]) + [UInt8](repeating: 7, count: 16)
        }
        let page = [UInt8](repeating: 0xAB, count: 4096)

        // The WAL header is not a frame: written at once.
        #expect(write([UInt8](repeating: 1, count: 32), at: 0) == SQLITE_OK)
        #expect(onDisk() == 32)
        // A frame that does not commit waits in the buffer...
        #expect(write(header(commit: false), at: 32) == SQLITE_OK)
        #expect(write(page, at: 56) == SQLITE_OK)
        #expect(onDisk() == 32)
        // ...until the commit frame's page is in: then both frames are in the file.
        #expect(write(header(commit: true), at: 4152) == SQLITE_OK)
        #expect(onDisk() == 32)
        #expect(write(page, at: 4176) == SQLITE_OK)
        #expect(onDisk() == 32 + 2 * (24 + 4096))

        // A read writes a waiting frame first, so the connection reads back what it wrote.
        #expect(write(header(commit: false), at: 8272) == SQLITE_OK)
        #expect(write(page, at: 8296) == SQLITE_OK)
        var back = [UInt8](repeating: 0, count: 4096)
        let read = back.withUnsafeMutableBytes { methods.pointee.xRead(handle, $0.baseAddress, 4096, 8296) }
        #expect(read == SQLITE_OK)
        #expect(back == page)
        #expect(onDisk() == 8296 + 4096)

        // A header whose page goes elsewhere is written as it came, the page too.
        #expect(write(header(commit: false), at: 12392) == SQLITE_OK)
        #expect(write(page, at: 20000) == SQLITE_OK)
        #expect(onDisk() == 20000 + 4096)
        // So is a write of another size.
        #expect(write([UInt8](repeating: 5, count: 100), at: 24096) == SQLITE_OK)
        #expect(onDisk() == 24196)

        // Asking the size writes what waits (as do a sync, a truncation, a file control and closing).
        #expect(write(header(commit: false), at: 24196) == SQLITE_OK)
        #expect(write(page, at: 24220) == SQLITE_OK)
        #expect(onDisk() == 24196)
        var size: Int64 = 0
        #expect(methods.pointee.xFileSize(handle, &size) == SQLITE_OK)
        #expect(size == 24220 + 4096)
        let contents = try Data(contentsOf: URL(fileURLWithPath: walPath))
        #expect(Array(contents[56..<(56 + 4096)]) == page)
        #expect(Array(contents[4152..<(4152 + 24)]) == header(commit: true))
    }
}
