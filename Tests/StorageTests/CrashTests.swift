import CacheCore
import Foundation
import TestSupport
import Testing

@testable import Storage

/// A child process writes entries in a loop and is killed with SIGKILL at random moments; after each
/// kill the database passes `PRAGMA integrity_check` and every entry that can be read is complete. The
/// rounds take turns at the two `StoreSync`s: a killed process loses nothing the kernel was given, synced
/// or not, and an unsynced one leaves its marker for the next start.
@Suite struct CrashTests {
    static let chunkSize = 2048
    static let kills = 8

    /// The crash writer is built next to the test bundle by `swift build --build-tests`.
    static var writerPath: String {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = bundle.deletingLastPathComponent()
        // On Linux the bundle is the executable itself; on Darwin it is a directory tree.
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("StorageCrashWriter").path),
            directory.path != "/"
        {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("StorageCrashWriter").path
    }

    @Test func killedWriterLeavesAConsistentDatabaseAndOnlyWholeEntries() throws {
        let writer = Self.writerPath
        try #require(FileManager.default.isExecutableFile(atPath: writer), "build StorageCrashWriter first")
        let directory = StorageTestDirectory()
        let path = directory.file()
        var random = SplitMix64(seed: 2024)
        var checkedEntries = 0
        for round in 0..<Self.kills {
            let sync: StoreSync = round % 2 == 0 ? .off : .checkpoint
            let process = try ChildProcess(
                writer, [path, String(round + 1), String(Self.chunkSize), sync.rawValue], standardOutput: .pipe)
            // Wait until it is writing (bounded), then let it run a random while before the kill.
            let output = try #require(process.output)
            let ready = DispatchSemaphore(value: 0)
            output.readabilityHandler = { handle in
                if !handle.availableData.isEmpty { ready.signal() }
            }
            let started = ready.wait(timeout: .now() + 10) == .success
            output.readabilityHandler = nil
            #expect(started, "round \(round): the writer did not start")
            usleep(UInt32(20_000 + random.next() % 250_000))
            process.send(SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal)
            let marker = try? String(contentsOfFile: path + "-unsynced", encoding: .utf8)
            #expect((marker != nil) == (sync == .off), "round \(round)")

            do {
                let connection = try SQLiteConnection(path: path, readOnly: false)
                let verdict = try connection.query("PRAGMA integrity_check") { $0.text(0) ?? "" }
                #expect(verdict == ["ok"], "round \(round)")
            }
            let store = try SQLiteCacheStore(configuration: .init(path: path, chunkSize: Self.chunkSize))
            var cursor: String?
            repeat {
                let page = try store.list(CacheEntryQuery(limit: 200, cursor: cursor))
                for entry in page.entries {
                    let index = try #require(Int(entry.url.split(separator: "/").last ?? ""))
                    let expected = CacheCoreFixtures.crashBody(index: index, chunkSize: Self.chunkSize)
                    let reader = try store.openBody(of: entry, form: .identity)
                    var body = [UInt8]()
                    while let piece = try reader.next() { body += piece }
                    #expect(body == expected, "round \(round), entry \(index)")
                    checkedEntries += 1
                }
                cursor = page.nextCursor
            } while cursor != nil
            // No body outlives its entry or its writer: every chunk belongs to a committed entry.
            let counts = try store.database.read { connection in
                (
                    chunks: try connection.queryFirst("SELECT count(*) FROM chunk") { $0.int(0) } ?? -1,
                    expected: try connection.queryFirst(
                        "SELECT coalesce(sum((original_size + chunk_size - 1) / chunk_size), 0) FROM entry"
                    ) { $0.int(0) } ?? -2,
                    pending: try connection.queryFirst("SELECT count(*) FROM pending_body") { $0.int(0) } ?? -1,
                    stats: try connection.queryFirst(
                        "SELECT entry_count = (SELECT count(*) FROM entry) AND total_bytes = (SELECT coalesce(sum(footprint), 0) FROM entry) FROM stats"
                    ) {
                        $0.int(0)
                    } ?? 0
                )
            }
            #expect(counts.chunks == counts.expected, "round \(round)")
            #expect(counts.pending == 0)
            #expect(counts.stats == 1)
        }
        #expect(checkedEntries > 8 * 10)
    }
}
