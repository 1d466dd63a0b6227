import Foundation
import TestSupport
import Testing

/// Hit counts are kept in memory and written in batches (hot tier and store), so serving a hit costs no
/// write; a SIGTERM drain writes what is pending before the process exits, so no hit is lost, and then
/// checkpoints the WAL into the database file.
@Suite struct ShutdownHitCountTests {
    @Test(arguments: [0, 4 << 20])
    func hitsCountedInMemoryAreWrittenBeforeASigtermExit(hotBytes: Int) async throws {
        let origin = try StubOrigin()
        defer { origin.stop() }
        origin.respond(to: "/counted", with: .ok("counted body").header("Cache-Control", "max-age=600"))
        let directory = StorageTestDirectory()
        let database = directory.file("hits.db")
        // With a hot tier (4 MiB) the hits are counted by it; without one (0), by the store's batch.
        let arguments = ["--allow-network", "127.0.0.0/8", "--hot-bytes", String(hotBytes)]
        let server = try await LarderProcess.start(arguments: arguments, database: database)
        let miss = try server.fetch(origin.url("/counted"))
        #expect(miss.header("X-Cache") == "MISS")
        let key = try #require(miss.header("X-Cache-Key"))
        #expect(await waitUntil(timeout: .seconds(5)) { (try? server.request("GET", "/cache/\(key)").status) == 200 })
        let hits = 5
        for _ in 0..<hits {
            #expect(try server.fetch(origin.url("/counted")).header("X-Cache") == "HIT")
        }
        server.process.terminate()
        #expect(await server.waitForExit())
        #expect(server.process.terminationStatus == 0)

        // The drain ends with a checkpoint: everything is in the database file, the WAL is empty.
        let wal = try? FileManager.default.attributesOfItem(atPath: database + "-wal")[.size] as? Int
        #expect((wal ?? 0) == 0)

        let restarted = try await LarderProcess.start(arguments: arguments, database: database)
        defer { restarted.stop() }
        let meta = try restarted.request("GET", "/cache/\(key)/meta")
        #expect(meta.status == 200)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(meta.body)) as? [String: Any])
        #expect(object["hits"] as? Int == hits)
        #expect(origin.requestCount(for: "/counted") == 1)
    }
}
