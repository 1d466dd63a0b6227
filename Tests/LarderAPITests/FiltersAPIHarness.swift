import CacheCore
import CachePolicy
import Foundation
import HTTPCore
import HTTPServer
import LarderAPI
import Storage
import TestSupport
import Upstream

/// A real server on 127.0.0.1:0 serving `/filters` from a real SQLite store. The database file is given,
/// so a test can stop one harness and start another on the same file (a restart). Explain resolves
/// `a.example` to a documentation address without DNS; IP literals go through the real policy.
final class FiltersAPIHarness: @unchecked Sendable {
    static let exampleAddress = IPAddress("93.184.216.34")!

    let store: SQLiteCacheStore
    let registry: FilterChainRegistry
    let server: HTTPServer

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
        var router = Router()
        api.mount(on: &router, access: AdminAccess(token: token))
        server = HTTPServer(
            configuration: HTTPServerConfiguration(
                host: "127.0.0.1", port: 0, headerReadTimeout: 2, idleTimeout: 2, writeTimeout: 2, eventLoops: 2),
            responder: router)
        try server.start()
    }

    func stop() async { await server.shutdown(grace: 0) }

    /// Sends one request on a new connection; a body is sent with `Content-Length` and `contentType`.
    func request(
        _ method: String, _ path: String, body: String? = nil, contentType: String? = "application/json",
        headers: [(String, String)] = []
    ) throws -> RawHTTPResponse {
        let client = try RawSocketClient(port: server.port)
        var text = "\(method) \(path) HTTP/1.1\r\nHost: test\r\nConnection: close\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if let body {
            if let contentType { text += "Content-Type: \(contentType)\r\n" }
            text += "Content-Length: \(body.utf8.count)\r\n\r\n" + body
        } else {
            text += "\r\n"
        }
        try client.send(text)
        return try client.readResponse(isHeadResponse: method == "HEAD")
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

/// Runs a test body against a fresh harness on a new database and always stops the server.
func withFiltersHarness(
    token: String? = nil, _ body: (FiltersAPIHarness, StorageTestDirectory) async throws -> Void
) async throws {
    let directory = StorageTestDirectory()
    let harness = try FiltersAPIHarness(path: directory.file(), token: token)
    do {
        try await body(harness, directory)
    } catch {
        await harness.stop()
        throw error
    }
    await harness.stop()
}
