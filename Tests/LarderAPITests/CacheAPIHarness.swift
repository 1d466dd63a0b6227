import CacheCore
import Dispatch
import Foundation
import HTTPCore
import HTTPServer
import LarderAPI
import LarderTesting
import Synchronization
import TestSupport

@testable import Storage

/// `/cache` from the route table (`LarderRoutes`) over a real SQLite store in a temporary directory, with
/// small chunks so that multi-chunk bodies stay small, and a fixed clock. The operator page (`/ui/`) is
/// mounted beside it under the same admin policy, as `larder serve` does. Tests reach it through
/// `LarderTestApp`, in process or on 127.0.0.1:0 (`withHarness(mode:)`).
final class CacheAPIHarness: @unchecked Sendable {
    static let chunkSize = 4096
    static let now = CacheCoreFixtures.epoch.addingTimeInterval(600)

    let directory = StorageTestDirectory()
    let store: SQLiteCacheStore
    let app: LarderTestApp
    /// The test's client, set by `withHarness` for the length of the test.
    fileprivate(set) var client: LarderTestClient!
    let bodyFailures = FailureLog()
    let access: AdminAccess

    /// Builds the app. `token` (one full token) or `tokens` (named, scoped) configure admin access.
    init(token: String? = nil, tokens: [AdminToken] = []) throws {
        store = try SQLiteCacheStore(
            configuration: .init(
                path: directory.file(), chunkSize: Self.chunkSize, clock: { CacheCoreFixtures.epoch }))
        let failures = bodyFailures
        let api = CacheAPI(
            store: store, executor: StorageExecutor(width: 2), clock: { CacheAPIHarness.now },
            onBodyFailure: { key, error in failures.record(key, error) })
        access = tokens.isEmpty ? AdminAccess(token: token) : AdminAccess(tokens: tokens)
        app = LarderTestApp(
            routes: LarderRoutes(access: access, cache: api, operatorPage: true),
            server: LarderTestApp.serverConfiguration(timeout: 2))
    }

    /// Stores a body under `url` with the store's writer, appended in uneven pieces.
    @discardableResult
    func put(
        _ url: String, _ body: [UInt8], contentType: String? = "text/plain; charset=utf-8",
        extraHeaders: [(String, String)] = []
    ) throws -> StoredEntry {
        let entry = CacheCoreFixtures.makeEntry(url: url, contentType: contentType, extraHeaders: extraHeaders)
        let writer = try store.beginWrite(hints: CacheBodyHints(headers: entry.headers))
        var offset = 0
        while offset < body.count {
            let end = min(offset + 1500, body.count)
            try writer.append(Array(body[offset..<end]))
            offset = end
        }
        return try writer.commit(entry)
    }

    /// Sends one request and reads the response.
    func request(
        _ method: String, _ path: String, headers: [(String, String)] = [], body: String? = nil
    ) throws -> RawHTTPResponse {
        try client.request(method, path, headers: headers, body: body.map { Array($0.utf8) }, timeout: 5)
    }

    /// Sends one request on a new connection and returns the raw client, for tests that watch the
    /// connection (`.live` only).
    func open(_ method: String, _ path: String) throws -> RawSocketClient {
        let client = try RawSocketClient(port: self.client.port)
        try client.send("\(method) \(path) HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
        return client
    }

    /// Damages one stored chunk of an entry, leaving its recorded CRC-32 as it was.
    func damageChunk(of entry: StoredEntry, sequence: Int) throws {
        let id = entry.bodyID << StorageSchema.chunkIDShift | Int64(sequence)
        _ = try store.database.write {
            try $0.run("UPDATE chunk SET data = randomblob(length(data)) WHERE id = ?", [.integer(id)])
        }
    }

    /// Parses a JSON answer.
    static func json(_ response: RawHTTPResponse) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] ?? [:]
    }
}

/// Runs a test body against a fresh harness, in process unless `mode` says `.live`, and always stops what
/// it started.
func withHarness(
    token: String? = nil, tokens: [AdminToken] = [], mode: LarderTestMode = .router,
    _ body: (CacheAPIHarness) async throws -> Void
) async throws {
    let harness = try CacheAPIHarness(token: token, tokens: tokens)
    try await harness.app.test(mode) { client in
        harness.client = client
        try await body(harness)
    }
}

/// Body read failures reported by the API.
final class FailureLog: Sendable {
    private let entries = Mutex<[(CacheKey, String)]>([])
    func record(_ key: CacheKey, _ error: any Error) { entries.withLock { $0.append((key, "\(error)")) } }
    var keys: [CacheKey] { entries.withLock { $0.map(\.0) } }
}

/// Decompresses a gzip member with Python's gzip module (an implementation independent of ours).
func gunzip(_ bytes: [UInt8]) throws -> [UInt8] {
    let process = try ChildProcess(
        "/usr/bin/env",
        ["python3", "-c", "import gzip,sys; sys.stdout.buffer.write(gzip.decompress(sys.stdin.buffer.read()))"],
        pipeInput: true, standardOutput: .pipe)
    let (status, output) = process.communicate(bytes)
    guard status == 0 else { throw GunzipFailed(status: status) }
    return output
}

/// Python could not decompress what the server sent.
struct GunzipFailed: Error {
    let status: Int32
}
