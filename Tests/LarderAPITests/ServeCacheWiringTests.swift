import CacheCore
import Foundation
import LarderTesting
import Storage
import TestSupport
import Testing

/// `serve`'s wiring, in process (`LarderTestApp(serving:)`), against a seeded database: `--db`, `--max-size`
/// and the admin token from `LARDER_ADMIN_TOKEN` reach the /cache routes. What only the process does (a
/// bad value stops it before it listens) runs the built binary.
@Suite(.serialized) struct ServeCacheWiringTests {
    @Test func serveOpensTheDatabaseAndGuardsCacheWithTheToken() async throws {
        let directory = StorageTestDirectory()
        let body = CacheCoreFixtures.compressibleBody(length: 70_000)
        let entry: StoredEntry
        do {
            let store = try SQLiteCacheStore(path: directory.file())
            let writer = try store.beginWrite(hints: CacheBodyHints(contentType: "text/plain"))
            try writer.append(body)
            entry = try writer.commit(CacheCoreFixtures.makeEntry(url: "https://seeded.example/a.txt"))
        }
        let log = LogRecorder()
        let app = try LarderTestApp(
            serving: ["db": directory.file(), "max-size": "64M"], environment: ["LARDER_ADMIN_TOKEN": "t0ken-42"],
            logger: log.logger())
        try await app.test(.router) { client in
            func get(_ path: String, token: String?) throws -> RawHTTPResponse {
                try client.request("GET", path, headers: token.map { [("Authorization", "Bearer \($0)")] } ?? [])
            }
            #expect(try get("/cache", token: nil).status == 401)
            #expect(try get("/cache", token: "wrong").status == 401)
            let listing = try get("/cache", token: "t0ken-42")
            #expect(listing.status == 200)
            #expect(listing.text.contains("https://seeded.example/a.txt"))
            let read = try get("/cache/\(entry.key.hex)", token: "t0ken-42")
            #expect(read.status == 200)
            #expect(sameBytes(read.body, body))
            // Audited under the wiring's `larder.audit` part, which logs through the injected logger.
            let deleted = try client.request(
                "DELETE", "/cache/\(entry.key.hex)", headers: [("Authorization", "Bearer t0ken-42")])
            #expect(deleted.status == 204)
        }
        #expect(log.text.contains("maxSize=67108864"))
        #expect(log.text.contains("label=larder.audit"))
        #expect(!log.text.contains("t0ken-42"))
    }

    @Test(arguments: ["12Q", "-5", "lots"])
    func aBadMaxSizeStopsServeBeforeItListens(_ value: String) async throws {
        let directory = StorageTestDirectory()
        let result = try await LarderProcess.run([
            "serve", "--host", "127.0.0.1", "--port", "0", "--db", directory.file(), "--max-size", value,
        ])
        #expect(!result.output.contains("listening on"))
        #expect(result.status != 0)
        #expect(result.output.contains("--max-size"))
    }
}
