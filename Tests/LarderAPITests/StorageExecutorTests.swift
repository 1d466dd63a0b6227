import CacheCore
import Foundation
import HTTPCore
import HTTPServer
import LarderAPI
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

        let router = LarderRoutes(
            access: AdminAccess(token: nil), cache: CacheAPI(store: store, executor: StorageExecutor(width: 2))
        ).makeRouter()
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, eventLoops: 1), responder: router)
        try server.start()
        defer { server.shutdown(grace: 0) {} }
        func ask(_ method: String, _ path: String, _ extra: String = "") throws -> RawHTTPResponse {
            let client = try RawSocketClient(port: server.port)
            try client.send("\(method) \(path) HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\(extra)\r\n")
            return try client.readResponse(isHeadResponse: method == "HEAD")
        }
        #expect(try ask("GET", "/cache").status == 200)
        #expect(try sameBytes(ask("GET", "/cache/\(entry.key.hex)").body, body))
        #expect(
            try ask("GET", "/cache/\(entry.key.hex)", "Range: bytes=1000-3999\r\n").body == Array(body[1000..<4000]))
        #expect(try ask("HEAD", "/cache/\(entry.key.hex)").status == 200)
        #expect(try ask("GET", "/cache/\(entry.key.hex)/meta").status == 200)
        #expect(try ask("DELETE", "/cache/\(entry.key.hex)").status == 204)
        #expect(try ask("DELETE", "/cache?host=spy.example").status == 200)
        #expect(store.calls >= 12)
        #expect(store.violations == [])
    }
}
