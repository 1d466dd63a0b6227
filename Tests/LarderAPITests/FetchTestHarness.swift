import CacheCore
import CachePolicy
import Dispatch
import Foundation
import HTTPCore
import HTTPServer
import LarderAPI
import LarderTesting
import Storage
import Synchronization
import TestSupport
import Upstream

/// A clock tests move by hand, so freshness tests never sleep.
final class ManualClock: Sendable {
    private let current = Mutex(CacheCoreFixtures.epoch)
    var now: Date { current.withLock { $0 } }
    func advance(by seconds: Double) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// A decider that answers one decision for every request, for deny / bypass / filter-option cases.
struct FixedDecider: FilterDecider {
    let decision: FilterDecision
    func decide(url: CanonicalURL, method: HTTPMethod, headers: HTTPHeaders) -> FilterDecision { decision }
}

/// Larder's `/fetch` and `/fetches` from the route table (`LarderRoutes`) over a real SQLite store in a
/// temporary directory, fetching from a `StubOrigin` on 127.0.0.1 (allowed through `allowNetworks`), with
/// a manual clock; reached through `LarderTestApp` on 127.0.0.1:0 (`withFetchHarness`).
final class FetchTestHarness: @unchecked Sendable {
    let origin: StubOrigin
    let clock = ManualClock()
    let directory = StorageTestDirectory()
    let store: SQLiteCacheStore
    let client: OriginClient
    let service: FetchService
    let app: LarderTestApp
    /// The test's client, set by `withFetchHarness` for the length of the test.
    fileprivate(set) var http: LarderTestClient!
    /// The live server.
    var server: HTTPServer { http.server! }

    /// - Parameter wrapStore: what the service is given in place of the SQLite store (a wrapper around it).
    init(
        decision: FilterDecision = .defaultHTTP, limits: OriginLimits = OriginLimits(totalTimeout: .seconds(30)),
        configuration: FetchConfiguration = FetchConfiguration(), allowNetworks: [CIDR] = [CIDR("127.0.0.0/8")!],
        fetchAccess: FetchAccess = FetchAccess(), wrapStore: (SQLiteCacheStore) -> any CacheStore = { $0 }
    ) throws {
        origin = try StubOrigin()
        let clock = self.clock
        store = try SQLiteCacheStore(
            configuration: .init(path: directory.file(), chunkSize: 4096, clock: { clock.now }))
        client = OriginClient(
            configuration: OriginClient.Configuration(
                limits: limits, addressPolicy: AddressPolicy(allowNetworks: allowNetworks),
                viaName: configuration.viaName))
        service = FetchService(
            store: wrapStore(store), executor: StorageExecutor(width: 2), client: client,
            decider: FixedDecider(decision: decision),
            clock: { clock.now }, configuration: configuration)
        app = LarderTestApp(
            routes: LarderRoutes(access: AdminAccess(token: nil), fetch: service, fetchAccess: fetchAccess))
    }

    /// Stops what the app does not: the origin client and the stub origin.
    func stop() {
        client.shutdown()
        origin.stop()
    }

    /// `/fetch?url=` for a path on the stub origin.
    func fetchPath(_ originPath: String) -> String {
        "/fetch?url=" + origin.url(originPath).percentEncoded()
    }

    /// Fetches a stub origin path through Larder on a new connection.
    func fetch(_ originPath: String, method: String = "GET", headers: [(String, String)] = []) throws -> RawHTTPResponse
    {
        try request(method, fetchPath(originPath), headers: headers)
    }

    /// Sends one request on a new connection and reads the response.
    func request(_ method: String, _ path: String, headers: [(String, String)] = []) throws -> RawHTTPResponse {
        try http.request(method, path, headers: headers)
    }

    /// Sends one request and returns the client without reading.
    func open(_ method: String, _ path: String, headers: [(String, String)] = []) throws -> RawSocketClient {
        let client = try RawSocketClient(port: http.port, timeout: 30)
        var text = "\(method) \(path) HTTP/1.1\r\nHost: test\r\nConnection: close\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        try client.send(text + "\r\n")
        return client
    }

    /// Stores `bytes` as a fresh validated PNG for an origin path straight through the store, as admission
    /// would have: the bytes never pass admission's checks (for tests of what a read checks).
    /// - Returns: the stored entry's URL.
    @discardableResult
    func storeAsPNG(_ originPath: String, _ bytes: [UInt8]) throws -> String {
        let url = origin.url(originPath)
        let writer = try store.beginWrite(hints: CacheBodyHints(contentType: "image/png"))
        try writer.append(bytes)
        let now = clock.now
        _ = try writer.commit(
            StoredEntry(
                key: CacheKey.make(canonicalURL: url), url: url, status: .ok,
                headers: HTTPHeaders([("Content-Type", "image/png"), ("Cache-Control", "max-age=60")]),
                requestTime: now, responseTime: now, freshnessLifetime: 60, imageFormat: "png"))
        return url
    }

    /// The key Larder stores an origin path's response under (no `Vary`).
    func key(_ originPath: String) -> String { CacheKey.make(canonicalURL: origin.url(originPath)).hex }

    /// Waits until no fetch is in flight (stores are committed before a fetch leaves the registry).
    func settle() async -> Bool { await waitUntil(timeout: .seconds(20)) { service.inFlightCount == 0 } }
}

/// Runs a test body against a fresh harness and always stops it.
func withFetchHarness(
    decision: FilterDecision = .defaultHTTP, limits: OriginLimits = OriginLimits(totalTimeout: .seconds(30)),
    configuration: FetchConfiguration = FetchConfiguration(), allowNetworks: [CIDR] = [CIDR("127.0.0.0/8")!],
    fetchAccess: FetchAccess = FetchAccess(), wrapStore: (SQLiteCacheStore) -> any CacheStore = { $0 },
    _ body: (FetchTestHarness) async throws -> Void
) async throws {
    let harness = try FetchTestHarness(
        decision: decision, limits: limits, configuration: configuration, allowNetworks: allowNetworks,
        fetchAccess: fetchAccess, wrapStore: wrapStore)
    defer { harness.stop() }
    try await harness.app.test(.live) { client in
        harness.http = client
        try await body(harness)
    }
}

/// Holds stub-origin answers until the test opens it, so that "while the fetch is under way" never
/// depends on timing. Every wait gives up after 30 s (generous: the whole package's tests share two cores).
final class OriginGate: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let opened = Mutex(false)

    /// Blocks the stub's connection thread until `open()` (or 30 s).
    func pass() {
        if opened.withLock({ $0 }) { return }
        if semaphore.wait(timeout: .now() + 30) == .success { semaphore.signal() }
    }

    /// Lets every held and later answer through.
    func open() {
        opened.withLock { $0 = true }
        semaphore.signal()
    }
}

extension FetchTestHarness {
    /// The callers waiting on the fetches under way, as `GET /fetches` reports them.
    func waiters() throws -> [Int] {
        let listing = try request("GET", "/fetches")
        let json = try JSONSerialization.jsonObject(with: Data(listing.body)) as? [String: Any]
        return (json?["fetches"] as? [[String: Any]] ?? []).compactMap { $0["waiters"] as? Int }
    }

    /// Waits until the one fetch under way has `count` callers.
    func waitForWaiters(_ count: Int) async -> Bool {
        await waitUntil(timeout: .seconds(20)) { (try? waiters()) == [count] }
    }
}
