import CSQLite
import CSQLiteVFS
import Foundation
import TestSupport
import Testing

@testable import Storage

/// Larder's VFS (Sources/CSQLiteVFS). Its WAL: a transaction's frames reach the file in a few writes, every
/// committed transaction is visible to another connection at once, and whatever is not a frame header
/// followed by its page goes to the file as it comes. Its database file: read through one map the
/// process's connections share, and never beyond what the file is known to hold.
@Suite struct SQLiteVFSTests {
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
        let before = try #require(connection.walWrites)
        try connection.inTransaction {
            // About 60 pages: two writes a frame without the VFS, three writes of 30 pages with it.
            for id in 0..<60 {
                let data = (0..<3000).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                _ = try connection.run("INSERT INTO item (id, data) VALUES (?, ?)", [.integer(Int64(id)), .blob(data)])
            }
            return .commit
        }
        let after = try #require(connection.walWrites)
        // The connection's own WAL file: 60 frames of a header and a page each, in a few writes of 30 pages.
        let requested = after.requested - before.requested
        let performed = after.performed - before.performed
        #expect(requested >= 120)
        #expect(performed * 20 < requested, "\(performed) writes for \(requested) asked")
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
        #expect(SQLiteConnection.processSetup.vfsName == CSQLITEVFS_NAME)
        let vfs = try #require(sqlite3_vfs_find(CSQLITEVFS_NAME))
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

    /// A file of the VFS opened directly, as SQLite opens one; closed with `close()`.
    private struct DirectFile {
        let handle: UnsafeMutablePointer<sqlite3_file>
        let methods: UnsafePointer<sqlite3_io_methods>
        private let memory: UnsafeMutableRawPointer
        private let name: UnsafeMutablePointer<CChar>

        init(path: String, flags: Int32) throws {
            // Registered by the process's SQLite setup, which every open in Larder goes through first.
            #expect(SQLiteConnection.processSetup.vfsName == CSQLITEVFS_NAME)
            let vfs = try #require(sqlite3_vfs_find(CSQLITEVFS_NAME))
            let size = Int(vfs.pointee.szOsFile)
            memory = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
            memory.initializeMemory(as: UInt8.self, repeating: 0, count: size)
            handle = memory.assumingMemoryBound(to: sqlite3_file.self)
            // A file name as SQLite hands it over, followed by empty URI parameters, alive until the close.
            let bytes = Array(path.utf8CString) + [0, 0, 0]
            name = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
            name.initialize(from: bytes, count: bytes.count)
            var outFlags: Int32 = 0
            try #require(vfs.pointee.xOpen(vfs, name, handle, flags, &outFlags) == SQLITE_OK)
            methods = try #require(handle.pointee.pMethods)
        }

        func close() {
            _ = methods.pointee.xClose(handle)
            memory.deallocate()
            name.deallocate()
        }

        func write(_ bytes: [UInt8], at offset: Int64) -> Int32 {
            bytes.withUnsafeBytes { methods.pointee.xWrite(handle, $0.baseAddress, Int32($0.count), offset) }
        }

        func read(_ count: Int, at offset: Int64) -> (code: Int32, bytes: [UInt8]) {
            var bytes = [UInt8](repeating: 0xEE, count: count)
            let code = bytes.withUnsafeMutableBytes {
                methods.pointee.xRead(handle, $0.baseAddress, Int32(count), offset)
            }
            return (code, bytes)
        }

        /// The bytes xFetch points at, or nil when it points nowhere (read them with xRead instead).
        func fetch(_ count: Int, at offset: Int64) -> [UInt8]? {
            var pointer: UnsafeMutableRawPointer?
            #expect(methods.pointee.xFetch(handle, offset, Int32(count), &pointer) == SQLITE_OK)
            guard let pointer else { return nil }
            defer { _ = methods.pointee.xUnfetch(handle, offset, pointer) }
            return Array(UnsafeRawBufferPointer(start: pointer, count: count))
        }

        /// Sends the file control `op` with `value` and returns what it left there.
        func control(_ op: Int32, _ value: Int64) -> Int64 {
            var value = value
            #expect(methods.pointee.xFileControl(handle, op, &value) == SQLITE_OK)
            return value
        }

        func mapStart() -> UnsafeMutableRawPointer? {
            var pointer: UnsafeMutableRawPointer?
            #expect(methods.pointee.xFileControl(handle, CSQLITEVFS_FCNTL_MAP, &pointer) == SQLITE_OK)
            return pointer
        }
    }

    /// The VFS's database file driven directly: reads come from one map shared by the file's connections,
    /// and only below the end this process knows the file to have; everything else is the default VFS's
    /// read, so a map never touches a page past the file's end (which would be SIGBUS).
    @Test func aDatabaseFileIsReadThroughOneMapOnlyWithinWhatItHolds() throws {
        let directory = StorageTestDirectory()
        let path = directory.file("mapped.db")
        let flags = SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        // shortRead, a macro Swift does not import.
        let shortRead = SQLITE_IOERR | 2 << 8
        let first = try DirectFile(path: path, flags: flags)
        defer { first.close() }
        let page = (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        #expect(first.write(page, at: 0) == SQLITE_OK)
        #expect(first.write(page.reversed(), at: 4096) == SQLITE_OK)

        // Without asking for the map, a file reads as the default VFS's does and fetches nothing.
        #expect(first.mapStart() == nil)
        #expect(first.fetch(4096, at: 0) == nil)
        #expect(first.read(4096, at: 4096).bytes == Array(page.reversed()))

        // Asked with a length (1 MiB here), the map is made; a second connection asking shares it.
        #expect(first.control(SQLITE_FCNTL_MMAP_SIZE, 1 << 20) == 1 << 20)
        let second = try DirectFile(path: path, flags: SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_READONLY)
        defer { second.close() }
        #expect(second.control(SQLITE_FCNTL_MMAP_SIZE, 4096) == 1 << 20)
        let start = try #require(first.mapStart())
        #expect(second.mapStart() == start)
        #expect(first.fetch(4096, at: 0) == page)
        #expect(second.fetch(4096, at: 4096) == Array(page.reversed()))
        // A query (-1, as `PRAGMA mmap_size` sends) changes nothing.
        #expect(second.control(SQLITE_FCNTL_MMAP_SIZE, -1) == 1 << 20)

        // Past the file's end nothing is fetched, and a read is the default VFS's short read.
        #expect(second.fetch(4096, at: 8192) == nil)
        #expect(second.fetch(8, at: 8190) == nil)
        let short = second.read(4096, at: 8192)
        #expect(short.code == shortRead)
        #expect(short.bytes == [UInt8](repeating: 0, count: 4096))

        // A write through one connection is fetched through the other as soon as it returns.
        let third = [UInt8](repeating: 0x5A, count: 4096)
        #expect(first.write(third, at: 8192) == SQLITE_OK)
        #expect(second.fetch(4096, at: 8192) == third)
        // A read across the end is the default VFS's, zero-filled past it.
        #expect(second.read(100, at: 8192 + 4000).bytes == [UInt8](repeating: 0x5A, count: 96) + [0, 0, 0, 0])

        // A truncation takes the cut pages out of the map before the file shrinks.
        #expect(first.methods.pointee.xTruncate(first.handle, 4096) == SQLITE_OK)
        #expect(second.fetch(4096, at: 4096) == nil)
        #expect(second.read(4096, at: 4096).code == shortRead)
        #expect(second.fetch(4096, at: 0) == page)

        // Grown by another process (here a plain write, not through the VFS), the file's new bytes are
        // read with pread: the map is not used where this process does not know the file's end.
        let outside = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try outside.seek(toOffset: 4096)
        try outside.write(contentsOf: Data(third))
        try outside.close()
        #expect(second.fetch(4096, at: 4096) == nil)
        let grown = second.read(4096, at: 4096)
        #expect(grown.code == SQLITE_OK)
        #expect(grown.bytes == third)

        // Nothing past the map's own length either, wherever the file ends.
        #expect(first.write(page, at: 1 << 20) == SQLITE_OK)
        #expect(first.fetch(4096, at: 1 << 20) == nil)
        #expect(first.read(4096, at: 1 << 20).bytes == page)
        #expect(first.fetch(4096, at: (1 << 20) - 2048) == nil)
    }
}
