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
        process.standardOutput = try FileHandle(forWritingTo: logURL)
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        // The bound port is logged as "listening on 127.0.0.1:PORT".
        var port: Int?
        let found = await eventually(timeout: 10) {
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
}
