import Foundation
import TestSupport
import Testing

@testable import Storage

/// Larder answers a miss before its store has written it. A SIGTERM right after the answer must not
/// lose that write: the drain waits for the store (up to the shutdown grace) before the process exits.
@Suite struct ShutdownStoreTests {
    @Test func aMissAnsweredBeforeSigtermIsStoredByTheTimeTheProcessExits() async throws {
        let origin = try StubOrigin()
        defer { origin.stop() }
        let body = CacheCoreFixtures.randomBody(length: 1 << 20)
        origin.respond(to: "/large", with: .ok(bytes: body).header("Cache-Control", "max-age=600"))
        let directory = StorageTestDirectory()
        let database = directory.file("stores.db")
        let arguments = ["--allow-network", "127.0.0.0/8"]
        let server = try await LarderProcess.start(arguments: arguments, database: database)
        // The default `--store-sync off`: the file is marked unsynced while the process runs.
        #expect(FileManager.default.fileExists(atPath: database + "-unsynced"))

        // Another connection holds SQLite's write lock, so the store is still waiting to write when the
        // caller has its answer and the signal comes. Without the wait for the store, the process exits
        // while blocked and the entry is lost; with it, the write goes through once the lock is let go.
        let blocker = try SQLiteConnection(path: database, readOnly: false)
        try blocker.execute("BEGIN IMMEDIATE")
        let miss = try server.fetch(origin.url("/large"))
        #expect(miss.header("X-Cache") == "MISS")
        // Compared as a Bool: on a mismatch Swift Testing would diff the two arrays element by element.
        let sameMiss = miss.body == body
        #expect(sameMiss, "the miss's body differs (\(miss.body.count) bytes)")
        let key = try #require(miss.header("X-Cache-Key"))
        server.process.terminate()
        // Within SQLite's 5 s busy timeout, so the store's statement waits rather than fails.
        try await Task.sleep(for: .milliseconds(800))
        let stillRunning = server.process.isRunning
        try blocker.execute("ROLLBACK")
        #expect(stillRunning, "the process exited while its store was still waiting to write")
        #expect(await server.waitForExit())
        #expect(server.process.terminationStatus == 0)
        // The clean stop synced the file and removed the mark.
        #expect(!FileManager.default.fileExists(atPath: database + "-unsynced"))

        let restarted = try await LarderProcess.start(arguments: arguments, database: database)
        defer { restarted.stop() }
        let stored = try restarted.request("GET", "/cache/\(key)")
        #expect(stored.status == 200)
        let sameBody = stored.body == body
        #expect(sameBody, "the stored body differs (\(stored.body.count) bytes)")
        #expect(origin.requestCount(for: "/large") == 1)
    }

    /// The wait is bounded by the shutdown grace: a store that cannot write does not keep the process up.
    @Test func aStoreStuckPastTheGraceDoesNotHoldTheExit() async throws {
        let origin = try StubOrigin()
        defer { origin.stop() }
        origin.respond(
            to: "/a", with: .ok(bytes: Array(repeating: 7, count: 4096)).header("Cache-Control", "max-age=60"))
        let directory = StorageTestDirectory()
        let database = directory.file("stuck.db")
        let server = try await LarderProcess.start(
            arguments: ["--allow-network", "127.0.0.0/8", "--shutdown-grace", "0.5"], database: database)
        defer { server.stop() }
        let blocker = try SQLiteConnection(path: database, readOnly: false)
        try blocker.execute("BEGIN IMMEDIATE")
        defer { try? blocker.execute("ROLLBACK") }
        #expect(try server.fetch(origin.url("/a")).header("X-Cache") == "MISS")
        server.process.terminate()
        // Well inside SQLite's 5 s busy timeout: the store is still waiting when the grace runs out.
        #expect(await server.waitForExit(timeout: .seconds(3)))
        #expect(server.process.terminationStatus == 0)
        #expect(server.logText.contains("origin fetches still running at exit are not stored"))
        // Not synced at the exit: the mark stays for the next start to find.
        #expect(FileManager.default.fileExists(atPath: database + "-unsynced"))
    }

    @Test func aStoreThatSyncsAtCheckpointsLeavesNoMark() async throws {
        let directory = StorageTestDirectory()
        let database = directory.file("synced.db")
        let server = try await LarderProcess.start(
            arguments: ["--store-sync", "checkpoint"], database: database)
        #expect(try server.request("GET", "/readyz").status == 200)
        #expect(!FileManager.default.fileExists(atPath: database + "-unsynced"))
        server.process.terminate()
        #expect(await server.waitForExit())
        #expect(server.process.terminationStatus == 0)
        #expect(!FileManager.default.fileExists(atPath: database + "-unsynced"))
    }
}
