import Foundation
import TestSupport
import Testing

/// `--store-deflate-level` reaches the store: the same compressible body, fetched through two servers, is
/// stored smaller at level 9 than at level 1, and both give back the origin's bytes.
@Suite struct StoreDeflateLevelTests {
    @Test func aServersDeflateLevelIsTheOneItsStoreCompressesAt() async throws {
        let body = String(decoding: CacheCoreFixtures.compressibleBody(length: 48 * 1024), as: UTF8.self)
        let origin = try StubOrigin()
        defer { origin.stop() }
        origin.respond(
            to: "/text", with: .ok(body).header("Cache-Control", "max-age=600"))
        var storedSizes: [Int] = []
        for level in ["1", "9"] {
            let directory = StorageTestDirectory()
            let server = try await LarderProcess.start(
                arguments: ["--allow-network", "127.0.0.0/8", "--store-deflate-level", level],
                database: directory.file("level-\(level).db"))
            let miss = try server.fetch(origin.url("/text"))
            #expect(miss.status == 200)
            let key = try #require(miss.header("X-Cache-Key"))
            // The entry is committed just after the answer: wait until the cache serves it.
            #expect(
                await waitUntil(timeout: .seconds(5)) { (try? server.request("GET", "/cache/\(key)"))?.status == 200 })
            let stored = try server.request("GET", "/cache/\(key)", headers: ["Accept-Encoding: gzip"])
            #expect(stored.header("Content-Encoding") == "gzip")
            storedSizes.append(stored.body.count)
            let plain = try server.request("GET", "/cache/\(key)")
            #expect(sameBytes(plain.body, Array(body.utf8)))
        }
        #expect(storedSizes[0] > storedSizes[1])
    }
}
