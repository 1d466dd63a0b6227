import Foundation
import TestSupport
import Testing

/// Runs the built `larder` binary: SIGTERM while a request is still arriving lets it complete, then
/// the process exits 0.
@Suite(.serialized) struct LarderProcessTests {
    /// The `larder` binary next to the test bundle (both are products of the same build).
    static var binary: URL? {
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        // The bundle may be a directory (`X.xctest/...`); walk up to the products folder.
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("larder")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }

    /// A database path in the temporary directory, unique to the caller.
    static func scratchDatabase() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("larder-\(UUID().uuidString).db").path
    }

    @Test func sigtermDrainsARequestInFlightAndExitsZero() async throws {
        guard let binary = Self.binary else {
            Issue.record("the larder binary is not built next to the tests: run `swift build --build-tests` first")
            return
        }
        let logURL = FileManager.default.temporaryDirectory.appendingPathComponent("larder-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: logURL) }
        let process = Process()
        process.executableURL = binary
        process.arguments = ["serve", "--host", "127.0.0.1", "--port", "0", "--shutdown-grace", "5"]
        process.environment = ProcessInfo.processInfo.environment.merging(["LARDER_DB": Self.scratchDatabase()]) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: logURL)
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        // The bound port is logged as "listening on 127.0.0.1:PORT".
        var port: Int?
        let found = await eventually(timeout: 30) {
            let log = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
            guard let range = log.range(of: "listening on 127.0.0.1:") else { return false }
            port = Int(log[range.upperBound...].prefix { $0.isNumber })
            return port != nil
        }
        #expect(found)
        let boundPort = try #require(port)

        let idle = try RawSocketClient(port: boundPort)
        try idle.send("GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
        #expect(try idle.readResponse().text == #"{"status":"ok"}"#)

        // A request whose body is still arriving is in flight when the signal comes.
        let busy = try RawSocketClient(port: boundPort)
        try busy.send("POST /healthz HTTP/1.1\r\nHost: test\r\nContent-Length: 10\r\n\r\nhello")
        try await Task.sleep(for: .milliseconds(300))
        kill(process.processIdentifier, SIGTERM)
        #expect(idle.isClosedByServer())
        try busy.send("world")
        let response = try busy.readResponse()
        #expect(response.status == 405)
        #expect(response.header("Connection") == "close")

        #expect(await eventually(timeout: 10) { !process.isRunning })
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
        let log = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
        #expect(log.contains("POST /healthz 405"))
    }

    /// Runs `larder` with arguments and environment additions until it exits (at most 10 s).
    private func runLarder(_ arguments: [String], environment: [String: String] = [:]) async throws -> (
        status: Int32, output: String
    ) {
        let binary = try #require(Self.binary, "the larder binary is not built next to the tests")
        let logURL = FileManager.default.temporaryDirectory.appendingPathComponent("larder-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: logURL) }
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        // `serve` opens its database: keep it out of the package directory unless a test names one.
        let base = ProcessInfo.processInfo.environment.merging(["LARDER_DB": Self.scratchDatabase()]) { $1 }
        process.environment = base.merging(environment) { $1 }
        let handle = try FileHandle(forWritingTo: logURL)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let exited = await eventually(timeout: 10) {
            if !process.isRunning { return true }
            // A server that started is stopped once it has said where it listens.
            let log = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
            if log.contains("listening on") { kill(process.processIdentifier, SIGTERM) }
            return false
        }
        #expect(exited)
        return (process.terminationStatus, (try? String(contentsOf: logURL, encoding: .utf8)) ?? "")
    }

    @Test func backgroundSweepRemovesAnExpiredEntry() async throws {
        let binary = try #require(Self.binary, "the larder binary is not built next to the tests")
        let origin = try StubOrigin()
        origin.respond(to: "/short", with: StubOriginResponse.ok("short-lived").header("Cache-Control", "max-age=3"))
        let logURL = FileManager.default.temporaryDirectory.appendingPathComponent("larder-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: logURL) }
        let process = Process()
        process.executableURL = binary
        process.arguments = [
            "serve", "--host", "127.0.0.1", "--port", "0", "--allow-network", "127.0.0.0/8", "--sweep-interval", "0.3",
        ]
        process.environment = ProcessInfo.processInfo.environment.merging(["LARDER_DB": Self.scratchDatabase()]) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: logURL)
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        var port: Int?
        #expect(
            await eventually(timeout: 30) {
                let log = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
                guard let range = log.range(of: "listening on 127.0.0.1:") else { return false }
                port = Int(log[range.upperBound...].prefix { $0.isNumber })
                return port != nil
            })
        let boundPort = try #require(port)
        func get(_ target: String) throws -> RawHTTPResponse {
            let client = try RawSocketClient(port: boundPort)
            try client.send("GET \(target) HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
            return try client.readResponse()
        }
        let target = "/fetch?url=" + origin.url("/short").formEncodedForTest()
        #expect(try get(target).status == 200)
        // The entry commits just after the response is sent; poll for it rather than race the commit. Three
        // seconds of freshness leave a loaded machine room to see it before the sweep may remove it.
        #expect(await eventually(timeout: 3) { (try? get("/cache").text.contains("/short")) == true })
        // max-age=3, no validator, no stale window: swept about three seconds after it was stored.
        #expect(await eventually(timeout: 10) { (try? get("/cache").text.contains("/short")) == false })
        #expect(origin.requestCount(for: "/short") == 1)
    }

    @Test func badEnvironmentValueIsRefusedNamingTheVariable() async throws {
        let result = try await runLarder(["serve"], environment: ["LARDER_PORT": "eighty"])
        #expect(result.status != 0)
        #expect(result.output.contains("LARDER_PORT: 'eighty'"))
    }

    @Test func flagWinsOverTheEnvironment() async throws {
        let result = try await runLarder(
            ["serve", "--host", "127.0.0.1", "--port", "0"], environment: ["LARDER_PORT": "eighty"])
        #expect(result.status == 0)
        #expect(result.output.contains("listening on 127.0.0.1:"))
    }

    @Test func environmentWinsOverTheDefault() async throws {
        let result = try await runLarder(
            ["serve", "--port", "0"], environment: ["LARDER_HOST": "127.0.0.1", "LARDER_LOG_FORMAT": "json"])
        #expect(result.status == 0)
        let firstLine = try #require(result.output.split(separator: "\n").first)
        #expect(firstLine.hasPrefix("{\"time\":"))
        #expect(firstLine.contains("\"message\":\"listening on 127.0.0.1:"))
    }

    @Test func serveHelpNamesEveryEnvironmentVariable() async throws {
        let result = try await runLarder(["serve", "--help"])
        #expect(result.status == 0)
        for variable in [
            "LARDER_HOST", "LARDER_PORT", "LARDER_DB", "LARDER_LOG_FORMAT", "LARDER_LOG_LEVEL", "LARDER_ACCESS_LOG",
            "LARDER_HEADER_TIMEOUT", "LARDER_IDLE_TIMEOUT", "LARDER_WRITE_TIMEOUT", "LARDER_MAX_CONNECTIONS",
            "LARDER_BACKLOG", "LARDER_MAX_REQUEST_LINE", "LARDER_MAX_HEADER_BYTES", "LARDER_MAX_HEADER_COUNT",
            "LARDER_MAX_BODY_BYTES", "LARDER_MAX_PIPELINED", "LARDER_EVENT_LOOPS", "LARDER_SHUTDOWN_GRACE",
        ] {
            #expect(result.output.contains(variable), "\(variable) missing from serve --help")
        }
    }
}

extension String {
    /// The string with every byte outside the unreserved set percent-encoded, for a query value.
    fileprivate func formEncodedForTest() -> String {
        utf8.map { byte -> String in
            let unreserved =
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E
            return unreserved ? String(UnicodeScalar(byte)) : String(format: "%%%02X", byte)
        }.joined()
    }
}
