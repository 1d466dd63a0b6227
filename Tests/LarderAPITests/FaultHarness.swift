import CacheCore
import CachePolicy
import Dispatch
import Foundation
import HTTPCore
import HTTPServer
import LarderAPI
import LarderTesting
import Synchronization
import TestSupport
import Testing
import Upstream

@testable import Storage

/// The fault suites, one after the other: each is heavy (thousands of sockets, megabytes trickled,
/// timeouts), and run at once beside the rest of the package they starve its timing-sensitive tests.
@Suite(.serialized) struct FaultSuites {
    /// The heaviest faults (3000 sockets, a byte-a-second reader, `kill -9` of a child process) starve
    /// the timing-sensitive tests of the rest of the package on a two-core machine: they run on their
    /// own, `LARDER_HEAVY_TESTS=1 swift test --skip-build --filter Fault` (as `.ci/run` does).
    static let heavy = ProcessInfo.processInfo.environment["LARDER_HEAVY_TESTS"] != nil
}

/// `/fetch`, `/healthz` and `/readyz` from the route table (`LarderRoutes`) over a real SQLite store,
/// fetching from a `StubOrigin`, on a live `LarderTestApp` whose server's timeouts and connection bound are
/// chosen per test (short, so faults end in seconds), with every store failure the service reports kept
/// for assertions.
final class FaultHarness: Sendable {
    let origin: StubOrigin
    let directory = StorageTestDirectory()
    let databasePath: String
    let store: SQLiteCacheStore
    let client: OriginClient
    let service: FetchService
    let app: LarderTestApp
    /// The test's client, set by `withFaultHarness` for the length of the test.
    private let http = Mutex<LarderTestClient?>(nil)
    /// The live server.
    var server: HTTPServer { http.withLock { $0 }!.server! }
    /// `/readyz` over this harness's store and service, attached to its server.
    let readiness: ReadinessHandler
    private let failures = StoreFailureLog()

    init(
        limits: OriginLimits = OriginLimits(totalTimeout: .seconds(10)),
        server serverConfiguration: HTTPServerConfiguration = HTTPServerConfiguration(
            host: "127.0.0.1", port: 0, headerReadTimeout: 5, idleTimeout: 5, writeTimeout: 5, eventLoops: 2)
    ) throws {
        origin = try StubOrigin()
        databasePath = directory.file()
        store = try SQLiteCacheStore(configuration: .init(path: databasePath, chunkSize: 16 * 1024))
        client = OriginClient(
            configuration: OriginClient.Configuration(
                limits: limits, addressPolicy: AddressPolicy(allowNetworks: [CIDR("127.0.0.0/8")!])))
        let failures = self.failures
        service = FetchService(
            store: store, executor: StorageExecutor(width: 2), client: client,
            onStoreFailure: { url, error in failures.lines.withLock { $0.append("\(url): \(error)") } })
        let store = self.store
        readiness = ReadinessHandler(service: service, storeProbe: { try store.probeWrite() })
        // `/healthz` is the table's `LivenessHandler`, which answers whatever else fails.
        app = LarderTestApp(
            routes: LarderRoutes(access: AdminAccess(token: nil), fetch: service, readiness: readiness),
            server: serverConfiguration)
    }

    /// Runs `body` on the live server.
    func test(_ body: (FaultHarness) async throws -> Void) async throws {
        try await app.test(.live) { client in
            http.withLock { $0 = client }
            try await body(self)
        }
    }

    /// Stops what the app does not: the origin client and the stub origin.
    func stop() {
        client.shutdown()
        origin.stop()
    }

    /// The store failures the service reported, as `url: error` lines.
    var reportedFailures: [String] { failures.lines.withLock { $0 } }

    /// `/fetch?url=` for a path on the stub origin.
    func fetchPath(_ originPath: String) -> String { "/fetch?url=" + origin.url(originPath).percentEncoded() }

    /// Fetches a stub origin path through Larder on a new connection.
    func fetch(_ originPath: String, headers: [(String, String)] = []) throws -> RawHTTPResponse {
        let client = try open(fetchPath(originPath), headers: headers)
        defer { client.close() }
        return try client.readResponse()
    }

    /// Sends `GET path` on a new connection and returns the client without reading.
    func open(_ path: String, headers: [(String, String)] = [], receiveBufferSize: Int32? = nil) throws
        -> RawSocketClient
    {
        let client = try RawSocketClient(port: server.port, timeout: 20, receiveBufferSize: receiveBufferSize)
        var text = "GET \(path) HTTP/1.1\r\nHost: test\r\nConnection: close\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        try client.send(text + "\r\n")
        return client
    }

    /// Whether `/healthz` answers 200 on a new connection within 5 s.
    func isHealthy() -> Bool {
        guard let client = try? RawSocketClient(port: server.port, timeout: 5) else { return false }
        defer { client.close() }
        guard (try? client.send("GET /healthz HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")) != nil else {
            return false
        }
        return (try? client.readResponse())?.status == 200
    }

    /// The key of an origin path's response (no `Vary`).
    func key(_ originPath: String) -> CacheKey { CacheKey.make(canonicalURL: origin.url(originPath)) }

    /// The stored body of an origin path, or `nil` when nothing is stored.
    func storedBody(_ originPath: String) throws -> [UInt8]? {
        guard let entry = try store.entry(for: key(originPath)) else { return nil }
        let reader = try store.openBody(of: entry, form: .identity)
        var body: [UInt8] = []
        while let piece = try reader.next() { body += piece }
        return body
    }

    /// Waits until no fetch is in flight (a fetch leaves the registry after its store call).
    func settle() async -> Bool { await waitUntil(timeout: .seconds(20)) { service.inFlightCount == 0 } }

    /// Runs SQL on the store's writer connection (to make it fail the way a full or read-only disk does).
    func onWriter(_ sql: String) throws { try store.database.write { try $0.execute(sql) } }

    /// `PRAGMA integrity_check` on a reader: `["ok"]` for a sound file.
    func integrityCheck() throws -> [String] {
        try store.database.read { try $0.query("PRAGMA integrity_check") { $0.text(0) ?? "" } }
    }
}

/// The store failures a `FetchService` reported, shared with its callback.
final class StoreFailureLog: Sendable {
    let lines = Mutex<[String]>([])
}

/// Runs a test body against a fresh fault harness and always stops it.
func withFaultHarness(
    limits: OriginLimits = OriginLimits(totalTimeout: .seconds(10)),
    server: HTTPServerConfiguration = HTTPServerConfiguration(
        host: "127.0.0.1", port: 0, headerReadTimeout: 5, idleTimeout: 5, writeTimeout: 5, eventLoops: 2),
    _ body: (FaultHarness) async throws -> Void
) async throws {
    let harness = try FaultHarness(limits: limits, server: server)
    defer { harness.stop() }
    try await harness.test(body)
}

/// Runs blocking work (thousands of connects, long polls, big computations) on a Dispatch thread, so it
/// never holds one of the few threads every other test's `await` needs to resume on.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
    }
}

/// Deterministic, incompressible-looking bytes (a xorshift stream), so a stored body cannot pass by luck.
func faultBytes(count: Int, seed: UInt64) -> [UInt8] {
    var state = seed | 1
    return (0..<count).map { _ in
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return UInt8(truncatingIfNeeded: state)
    }
}
