import CacheCore
import CachePolicy
import Foundation
import HTTPCore
import HTTPServer
import LarderAPI
import LarderTesting
import Storage
import TestSupport
import Upstream

/// `/filters` from the route table (`LarderRoutes`) over a real SQLite store, reached through
/// `LarderTestApp` (in process unless a test asks for `.live`). The database file is given, so a test can
/// drop one harness and build another on the same file (a restart). Explain resolves `a.example` to a
/// documentation address without DNS; IP literals go through the real policy.
final class FiltersAPIHarness: @unchecked Sendable {
    static let exampleAddress = IPAddress("93.184.216.34")!

    let store: SQLiteCacheStore
    let registry: FilterChainRegistry
    let app: LarderTestApp
    /// The test's client, set by `test(_:_:)` for the length of the test.
    private(set) var client: LarderTestClient!

    init(path: String, token: String? = nil, defaultPolicy: FilterDefaultPolicy = .http) throws {
        store = try SQLiteCacheStore(path: path)
        registry = try FilterChainRegistry(store: store, defaultPolicy: defaultPolicy)
        let policy = AddressPolicy()
        let api = FiltersAPI(
            registry: registry, executor: StorageExecutor(width: 2),
            addressVerdicts: { host in
                host == "a.example"
                    ? [(Self.exampleAddress, policy.verdict(for: Self.exampleAddress))]
                    : IPAddress(host) != nil ? policy.verdicts(resolving: host) : []
            })
        app = LarderTestApp(
            routes: LarderRoutes(access: AdminAccess(token: token), filters: api),
            server: LarderTestApp.serverConfiguration(timeout: 2))
    }

    /// Runs `body` with this harness's client in the given setup.
    func test(_ mode: LarderTestMode = .router, _ body: (FiltersAPIHarness) async throws -> Void) async throws {
        try await app.test(mode) { client in
            self.client = client
            try await body(self)
        }
    }

    /// Sends one request; a body is sent with `Content-Length` and `contentType`.
    func request(
        _ method: String, _ path: String, body: String? = nil, contentType: String? = "application/json",
        headers: [(String, String)] = []
    ) throws -> RawHTTPResponse {
        var fields = headers
        if body != nil, let contentType { fields.append(("Content-Type", contentType)) }
        return try client.request(method, path, headers: fields, body: body.map { Array($0.utf8) }, timeout: 5)
    }

    /// The JSON object of an answer.
    static func json(_ response: RawHTTPResponse) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] ?? [:]
    }

    /// The filter names of a chain answer.
    static func names(_ response: RawHTTPResponse) throws -> [String] {
        ((try json(response)["filters"] as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String }
    }
}

/// Runs a test body against a fresh harness on a new database, in process unless `mode` says `.live`.
func withFiltersHarness(
    token: String? = nil, mode: LarderTestMode = .router,
    _ body: (FiltersAPIHarness, StorageTestDirectory) async throws -> Void
) async throws {
    let directory = StorageTestDirectory()
    let harness = try FiltersAPIHarness(path: directory.file(), token: token)
    try await harness.test(mode) { try await body($0, directory) }
}
