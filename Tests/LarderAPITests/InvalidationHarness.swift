import CacheCore
import CachePolicy
import Foundation
import HTTPCore
import HTTPServer
import LarderAPI
import Metrics
import Storage
import TestSupport
import Upstream

/// `/fetch` and `/cache` on one real server on 127.0.0.1:0, as `larder serve` mounts them: the cache API
/// changes entries through the fetch service's store (so purges reach memory) and canonicalizes a purge's
/// URL with the same filter decider. A real SQLite store, a manual clock, a `StubOrigin` (shared when
/// given, for replicas of one origin).
final class InvalidationHarness: @unchecked Sendable {
    let origin: StubOrigin
    let ownsOrigin: Bool
    let clock = ManualClock()
    let directory = StorageTestDirectory()
    let store: SQLiteCacheStore
    let client: OriginClient
    let service: FetchService
    let cache: CacheAPI
    let server: HTTPServer

    /// - Parameter maxBodyBytes: the largest request body the server takes (`--max-body-bytes`).
    init(
        origin: StubOrigin? = nil, decider: any FilterDecider = DefaultFilterDecider(),
        configuration: FetchConfiguration = FetchConfiguration(), maxBodyBytes: Int = 1 << 20
    ) throws {
        self.origin = try origin ?? StubOrigin()
        ownsOrigin = origin == nil
        let clock = self.clock
        store = try SQLiteCacheStore(
            configuration: .init(path: directory.file(), chunkSize: 4096, clock: { clock.now }))
        client = OriginClient(
            configuration: OriginClient.Configuration(
                limits: OriginLimits(totalTimeout: .seconds(30)),
                addressPolicy: AddressPolicy(allowNetworks: [CIDR("127.0.0.0/8")!])))
        let executor = StorageExecutor(width: 2)
        service = FetchService(
            store: store, executor: executor, client: client, decider: decider, clock: { clock.now },
            configuration: configuration)
        cache = CacheAPI(store: service.store, executor: executor, clock: { clock.now }, decider: decider)
        var router = Router()
        service.mount(on: &router, access: AdminAccess(token: nil))
        cache.mount(on: &router, access: AdminAccess(token: nil))
        server = HTTPServer(
            configuration: HTTPServerConfiguration(
                host: "127.0.0.1", port: 0, headerReadTimeout: 30, idleTimeout: 30, writeTimeout: 30,
                parserLimits: HTTPParserLimits(maxBodyBytes: maxBodyBytes), eventLoops: 2),
            responder: router)
        try server.start()
    }

    func stop() async {
        await server.shutdown(grace: 0)
        client.shutdown()
        if ownsOrigin { origin.stop() }
    }

    /// Fetches a stub origin path through Larder.
    func fetch(_ path: String, headers: [(String, String)] = []) throws -> RawHTTPResponse {
        try request("GET", "/fetch?url=" + FetchTestHarness.encode(origin.url(path)), headers: headers)
    }

    /// Sends one request on a new connection and reads the response.
    func request(_ method: String, _ target: String, headers: [(String, String)] = []) throws -> RawHTTPResponse {
        let client = try RawSocketClient(port: server.port, timeout: 30)
        defer { client.close() }
        var text = "\(method) \(target) HTTP/1.1\r\nHost: test\r\nConnection: close\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        try client.send(text + "\r\n")
        return try client.readResponse(isHeadResponse: method == "HEAD")
    }

    /// `DELETE /cache?<query>`, its JSON answer parsed.
    func purge(_ query: String) throws -> (status: Int, json: [String: Any]) {
        let response = try request("DELETE", "/cache" + (query.isEmpty ? "" : "?" + query))
        return (response.status, try CacheAPIHarness.json(response))
    }

    /// The `meta` of the entry stored under `path`'s primary key.
    func meta(_ path: String) throws -> [String: Any] {
        try CacheAPIHarness.json(try request("GET", "/cache/\(CacheKey.make(canonicalURL: origin.url(path)).hex)/meta"))
    }

    /// Waits until no fetch is in flight (stores are committed before a fetch leaves the registry).
    func settle() async -> Bool { await waitUntil(timeout: .seconds(20)) { service.inFlightCount == 0 } }
}

/// Runs a test body against a fresh harness and always stops it.
func withInvalidationHarness(
    decider: any FilterDecider = DefaultFilterDecider(), configuration: FetchConfiguration = FetchConfiguration(),
    maxBodyBytes: Int = 1 << 20, _ body: (InvalidationHarness) async throws -> Void
) async throws {
    let harness = try InvalidationHarness(
        decider: decider, configuration: configuration, maxBodyBytes: maxBodyBytes)
    do {
        try await body(harness)
    } catch {
        await harness.stop()
        throw error
    }
    await harness.stop()
}
