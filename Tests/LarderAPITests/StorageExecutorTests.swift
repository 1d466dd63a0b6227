import CacheCore
import Foundation
import HTTPCore
import HTTPServer
import LarderAPI
import LarderTesting
import TestSupport
import Testing

struct StorageExecutorTests {
    @Test func workRunsOnTheExecutorAndNotOnTheCaller() async throws {
        let executor = StorageExecutor(width: 2)
        #expect(!StorageExecutor.isCurrent)
        let seen = await withCheckedContinuation { continuation in
            executor.submit { continuation.resume(returning: StorageExecutor.isCurrent) }
        }
        #expect(seen)
    }

    @Test func everyStoreCallOfEveryRouteRunsOnTheStorageExecutor() async throws {
        let backing = InMemoryCacheStore(chunkSize: 1024, clock: { CacheCoreFixtures.epoch })
        let store = APIRecordingStore(wrapping: backing, probe: { StorageExecutor.isCurrent })
        let body = CacheCoreFixtures.randomBody(length: 5000)
        let writer = try backing.beginWrite(hints: CacheBodyHints(contentType: "application/octet-stream"))
        try writer.append(body)
        let entry = try writer.commit(CacheCoreFixtures.makeEntry(url: "https://spy.example/x"))

        let app = LarderTestApp(
            routes: LarderRoutes(
                access: AdminAccess(token: nil), cache: CacheAPI(store: store, executor: StorageExecutor(width: 2))))
        try await app.test(.router) { (client: LarderTestClient) async throws in
            #expect(try client.request("GET", "/cache").status == 200)
            #expect(try sameBytes(client.request("GET", "/cache/\(entry.key.hex)").body, body))
            #expect(
                try client.request("GET", "/cache/\(entry.key.hex)", headers: [("Range", "bytes=1000-3999")]).body
                    == Array(body[1000..<4000]))
            #expect(try client.request("HEAD", "/cache/\(entry.key.hex)").status == 200)
            #expect(try client.request("GET", "/cache/\(entry.key.hex)/meta").status == 200)
            #expect(try client.request("DELETE", "/cache/\(entry.key.hex)").status == 204)
            #expect(try client.request("DELETE", "/cache?host=spy.example").status == 200)
        }
        #expect(store.calls >= 12)
        #expect(store.violations == [])
    }
}
