import CacheCore
import Foundation
import Storage
import TestSupport
import Testing

/// Runs the built `larder` binary against a seeded database: `--db`, `--max-size` and the admin token
/// from `LARDER_ADMIN_TOKEN` reach the /cache routes.
@Suite(.serialized) struct ServeCacheWiringTests {
    /// `GET path` with the admin token as a bearer credential, if any.
    static func get(_ larder: LarderProcess, _ path: String, token: String?) throws -> RawHTTPResponse {
        try larder.request("GET", path, headers: token.map { ["Authorization: Bearer \($0)"] } ?? [])
    }

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
        let larder = try await LarderProcess.start(
            arguments: ["--max-size", "64M", "--log-level", "debug"], environment: ["LARDER_ADMIN_TOKEN": "t0ken-42"],
            database: directory.file())
        defer { larder.stop() }

        #expect(try Self.get(larder, "/cache", token: nil).status == 401)
        #expect(try Self.get(larder, "/cache", token: "wrong").status == 401)
        let listing = try Self.get(larder, "/cache", token: "t0ken-42")
        #expect(listing.status == 200)
        #expect(listing.text.contains("https://seeded.example/a.txt"))
        let read = try Self.get(larder, "/cache/\(entry.key.hex)", token: "t0ken-42")
        #expect(read.status == 200)
        #expect(sameBytes(read.body, body))
        let text = larder.logText
        #expect(text.contains("maxSize=67108864"))
        #expect(!text.contains("t0ken-42"))
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
