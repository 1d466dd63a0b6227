import CacheCore
import Dispatch
import Foundation
import Storage
import TestSupport
import Testing

/// Runs the built `larder` binary against a seeded database: `--db`, `--max-size` and the admin token
/// from `LARDER_ADMIN_TOKEN` reach the /cache routes.
@Suite(.serialized) struct ServeCacheWiringTests {
    /// The `larder` binary next to the test bundle (both are products of the same build).
    static var binary: URL? {
        var directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("larder")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }

    /// Starts `larder serve` and returns the process, its port and its log.
    static func start(
        _ arguments: [String], environment: [String: String], log: URL, startTimeoutSeconds: UInt64 = 30
    ) async throws -> (Process, Int?) {
        let binary = try #require(binary, "run `swift build --build-tests` first")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = binary
        process.arguments = ["serve", "--host", "127.0.0.1", "--port", "0", "--access-log", "false"] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        var port: Int?
        let deadline = DispatchTime.now().uptimeNanoseconds + startTimeoutSeconds * 1_000_000_000
        while port == nil && process.isRunning && DispatchTime.now().uptimeNanoseconds < deadline {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: "listening on 127.0.0.1:") {
                port = Int(text[range.upperBound...].prefix { $0.isNumber })
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return (process, port)
    }

    static func get(_ port: Int, _ path: String, token: String?) throws -> RawHTTPResponse {
        let client = try RawSocketClient(port: port)
        let authorization = token.map { "Authorization: Bearer \($0)\r\n" } ?? ""
        try client.send("GET \(path) HTTP/1.1\r\nHost: test\r\n\(authorization)Connection: close\r\n\r\n")
        return try client.readResponse()
    }

    @Test func serveOpensTheDatabaseAndGuardsCacheWithTheToken() async throws {
        let directory = StorageTestDirectory()
        let body = CacheCoreFixtures.compressibleBody(length: 70_000)
        let entry: StoredEntry
        do {
            let store = try SQLiteCacheStore(path: directory.file())
            let writer = try store.beginWrite(hints: CacheBodyHints(contentType: "text/plain"))
            try writer.append(body)
            entry = try writer.commit(CacheCoreFixtures.makeEntry(url: "https://seeded.example/a.txt"))
        }
        let log = URL(fileURLWithPath: directory.file("larder.log"))
        let (process, port) = try await Self.start(
            ["--db", directory.file(), "--max-size", "64M", "--log-level", "debug"],
            environment: ["LARDER_ADMIN_TOKEN": "t0ken-42"], log: log)
        defer { if process.isRunning { process.terminate() } }
        let boundPort = try #require(
            port, "larder did not start: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")

        #expect(try Self.get(boundPort, "/cache", token: nil).status == 401)
        #expect(try Self.get(boundPort, "/cache", token: "wrong").status == 401)
        let listing = try Self.get(boundPort, "/cache", token: "t0ken-42")
        #expect(listing.status == 200)
        #expect(listing.text.contains("https://seeded.example/a.txt"))
        let read = try Self.get(boundPort, "/cache/\(entry.key.hex)", token: "t0ken-42")
        #expect(read.status == 200)
        #expect(read.body == body)
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        #expect(text.contains("maxSize=67108864"))
        #expect(!text.contains("t0ken-42"))
    }

    @Test(arguments: ["12Q", "-5", "lots"])
    func aBadMaxSizeStopsServeBeforeItListens(_ value: String) async throws {
        let directory = StorageTestDirectory()
        let log = URL(fileURLWithPath: directory.file("larder.log"))
        let (process, port) = try await Self.start(
            ["--db", directory.file(), "--max-size", value], environment: [:], log: log)
        defer { if process.isRunning { process.terminate() } }
        #expect(port == nil)
        process.waitUntilExit()
        #expect(process.terminationStatus != 0)
        #expect(((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("--max-size"))
    }
}
