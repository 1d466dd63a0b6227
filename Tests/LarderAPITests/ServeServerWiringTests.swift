import CacheCore
import Foundation
import LarderTesting
import Storage
import TestSupport
import Testing

/// `LarderTestApp(serving:)` live runs the server `serve` runs (`LarderWiring.Wired.makeServer`): the listening
/// flags reach it, its access records feed `/metrics`, and the wiring's shutdown stops the background sweep.
@Suite(.serialized) struct ServeServerWiringTests {
    @Test func theListeningFlagsReachTheLiveServer() async throws {
        let directory = StorageTestDirectory()
        let app = try LarderTestApp(serving: ["db": directory.file(), "max-body-bytes": "16"])
        try await app.test(.live) { client in
            let small = try client.request("POST", "/filters", body: Array(repeating: 0x20, count: 16))
            #expect(small.status != 413)
            let large = try client.request("POST", "/filters", body: Array(repeating: 0x20, count: 17))
            #expect(large.status == 413)
            #expect(large.header("Content-Type") == "application/problem+json")
        }
    }

    @Test func liveRequestsAreCountedForMetricsAsServeCountsThem() async throws {
        let directory = StorageTestDirectory()
        let app = try LarderTestApp(serving: ["db": directory.file()])
        try await app.test(.live) { client in
            #expect(try client.request("GET", "/livez").status == 200)
            #expect(try client.request("GET", "/livez").status == 200)
            let metrics = try client.request("GET", "/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.text.contains(#"larder_http_requests_total{route="livez",code="200"} 2"#))
        }
    }

    @Test func theWiringsShutdownStopsTheSweep() async throws {
        let directory = StorageTestDirectory()
        let database = directory.file()
        let app = try LarderTestApp(serving: ["db": database, "sweep-interval": "0.02"])
        try await app.test(.live) { _ in
            // While serving, the sweep removes an entry expired an hour ago…
            try Self.storeExpiredEntry(in: database)
            #expect(try await Self.entryCount(in: database, becomes: 0))
        }
        // …and once the wiring has shut down (`Wired.finish`), it no longer runs.
        try Self.storeExpiredEntry(in: database)
        try await Task.sleep(for: .milliseconds(300))
        #expect(try SQLiteCacheStore(path: database).stats().entryCount == 1)
    }

    /// Stores an entry whose freshness ended an hour ago, through a connection of the test's own.
    private static func storeExpiredEntry(in database: String) throws {
        let store = try SQLiteCacheStore(path: database)
        let writer = try store.beginWrite(hints: CacheBodyHints(contentType: "text/plain"))
        try writer.append(Array("expired".utf8))
        _ = try writer.commit(
            CacheCoreFixtures.makeEntry(url: "https://expired.example/a.txt", responseTime: Date() - 7200))
    }

    /// Whether the database's entry count reaches `count` within five seconds.
    private static func entryCount(in database: String, becomes count: Int) async throws -> Bool {
        let deadline = Date().addingTimeInterval(5)
        // A new connection each time: what another store's sweep removed.
        while try SQLiteCacheStore(path: database).stats().entryCount != count {
            guard Date() < deadline else { return false }
            try await Task.sleep(for: .milliseconds(20))
        }
        return true
    }
}
