import Foundation
import TestSupport
import Testing

/// `serve` after a crash of the machine with its store open unsynced (the default `--store-sync off`): the
/// marker beside the file names another boot, the file fails its check, and the process starts with an
/// empty store instead of refusing to start, says so in its log, and keeps the damaged file aside.
@Suite struct StoreCrashRecoveryTests {
    @Test func aDamagedFileLeftByACrashOfTheMachineIsMovedAsideAndServeStartsEmpty() async throws {
        let origin = try StubOrigin()
        defer { origin.stop() }
        origin.respond(to: "/a", with: .ok(bytes: Array("fresh".utf8)).header("Cache-Control", "max-age=60"))
        let directory = StorageTestDirectory()
        let database = directory.file("crashed.db")
        try Data(repeating: 0x41, count: 16_384).write(to: URL(fileURLWithPath: database))
        try Data("a-boot-before-the-crash\n".utf8).write(to: URL(fileURLWithPath: database + "-unsynced"))

        let server = try await LarderProcess.start(arguments: ["--allow-network", "127.0.0.0/8"], database: database)
        defer { server.stop() }
        #expect(try server.request("GET", "/readyz").status == 200)
        #expect(server.logText.contains("failed its integrity check after a crash of the machine"))
        let moved = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasPrefix("crashed.db.corrupt-") }
        #expect(moved.count == 1)
        let kept = try Data(contentsOf: URL(fileURLWithPath: directory.path + "/" + (moved.first ?? "")))
        #expect(kept == Data(repeating: 0x41, count: 16_384))
        // The new store works: a miss is stored (behind its answer) and then served from it.
        let miss = try server.fetch(origin.url("/a"))
        #expect(miss.header("X-Cache") == "MISS")
        let key = try #require(miss.header("X-Cache-Key"))
        #expect(await waitUntil(timeout: .seconds(5)) { (try? server.request("GET", "/cache/\(key)").status) == 200 })
        let hit = try server.fetch(origin.url("/a"))
        #expect(hit.header("X-Cache") == "HIT")
        #expect(hit.body == Array("fresh".utf8))
        #expect(origin.requestCount(for: "/a") == 1)
    }

    /// Without a marker a file that is not a database is not larder's to move: `serve` refuses to start.
    @Test func aFileThatIsNotADatabaseWithoutAMarkerStopsServe() async throws {
        let directory = StorageTestDirectory()
        let database = directory.file("other.db")
        try Data(repeating: 0x41, count: 16_384).write(to: URL(fileURLWithPath: database))
        await #expect(throws: (any Error).self) {
            let server = try await LarderProcess.start(database: database)
            server.stop()
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == Data(repeating: 0x41, count: 16_384))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["other.db"])
    }
}
