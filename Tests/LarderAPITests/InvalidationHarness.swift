import CacheCore
import CachePolicy
import Foundation
import HTTPCore
import HTTPServer
import LarderAPI
import LarderTesting
import Metrics
import Storage
import TestSupport
import Upstream

/// `/fetch` and `/cache` from the route table (`LarderRoutes`), as `larder serve` mounts them: the cache API
/// changes entries through the fetch service's store (so purges reach memory) and canonicalizes a purge's
/// URL with the same filter decider. A real SQLite store, a manual clock, a `StubOrigin` (shared when
/// given, for replicas of one origin); reached through `LarderTestApp` on 127.0.0.1:0 unless a test asks
/// for `.router`.
final class InvalidationHarness: @unchecked Sendable {
    let origin: StubOrigin
    let ownsOrigin: Bool
    let clock = ManualClock()
    let directory = StorageTestDirectory()
    let store: SQLiteCacheStore
    let originClient: OriginClient
    let service: FetchService
    let cache: CacheAPI
    let app: LarderTestApp
    /// The test's client, set by `withInvalidationHarness` for the length of the test.
    fileprivate(set) var client: LarderTestClient!

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
        originClient = OriginClient(
            configuration: OriginClient.Configuration(
                limits: OriginLimits(totalTimeout: .seconds(30)),
                addressPolicy: AddressPolicy(allowNetworks: [CIDR("127.0.0.0/8")!])))
        let executor = StorageExecutor(width: 2)
        service = FetchService(
            store: store, executor: executor, client: originClient, decider: decider, clock: { clock.now },
            configuration: configuration)
        cache = CacheAPI(store: service.store, executor: executor, clock: { clock.now }, decider: decider)
        var server = LarderTestApp.serverConfiguration()
        server.parserLimits = HTTPParserLimits(maxBodyBytes: maxBodyBytes)
        app = LarderTestApp(
            routes: LarderRoutes(access: AdminAccess(token: nil), fetch: service, cache: cache), server: server)
    }

    /// Stops what the app does not: the origin client and the stub origin.
    func stop() {
        originClient.shutdown()
        if ownsOrigin { origin.stop() }
    }

    /// Fetches a stub origin path through Larder.
    func fetch(_ path: String, headers: [(String, String)] = []) throws -> RawHTTPResponse {
        try request("GET", "/fetch?url=" + origin.url(path).percentEncoded(), headers: headers)
    }

    /// Sends one request and reads the response.
    func request(_ method: String, _ target: String, headers: [(String, String)] = []) throws -> RawHTTPResponse {
        try client.request(method, target, headers: headers)
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

/// Runs a test body against a fresh harness, on a live server unless `mode` says `.router`, and always
/// stops it.
func withInvalidationHarness(
    decider: any FilterDecider = DefaultFilterDecider(), configuration: FetchConfiguration = FetchConfiguration(),
    maxBodyBytes: Int = 1 << 20, mode: LarderTestMode = .live, _ body: (InvalidationHarness) async throws -> Void
) async throws {
    let harness = try InvalidationHarness(decider: decider, configuration: configuration, maxBodyBytes: maxBodyBytes)
    defer { harness.stop() }
    try await harness.app.test(mode) { client in
        harness.client = client
        try await body(harness)
    }
}
