import Foundation
import TestSupport
import Testing

/// `larder health`: 0 only when `/healthz` answers 200 in time, one line of reason otherwise.
@Suite struct HealthCommandTests {
    @Test func runningServerIsHealthyByURLAndByEnvironment() async throws {
        let directory = StorageTestDirectory()
        let server = try await LarderProcess.start(database: directory.file())
        let byURL = try await LarderProcess.run(["health", "--url", server.url])
        #expect(byURL.status == 0)
        #expect(byURL.output.hasPrefix("healthy: 127.0.0.1:\(server.port)"))
        // The container's HEALTHCHECK has no flags: LARDER_HOST 0.0.0.0 means ask loopback.
        let byEnvironment = try await LarderProcess.run(
            ["health"], environment: ["LARDER_HOST": "0.0.0.0", "LARDER_PORT": "\(server.port)"])
        #expect(byEnvironment.status == 0, "\(byEnvironment.output)")
        server.stop()
        let afterStop = try await LarderProcess.run(["health", "--url", server.url])
        #expect(afterStop.status != 0)
        #expect(afterStop.output.contains("cannot connect"))
    }

    /// How a non-answer looks: the stub stands in for a sick server.
    enum Sickness: String, CaseIterable, Sendable {
        case serverError, silent, garbage
    }

    @Test(arguments: Sickness.allCases)
    func sickServerIsUnhealthyWithAReason(_ sickness: Sickness) async throws {
        let stub = try StubOrigin()
        defer { stub.stop() }
        let expected: String
        switch sickness {
        case .serverError:
            stub.respond(to: "/healthz", with: .status(503))
            expected = "answered /healthz with 503"
        case .silent:
            stub.respond(to: "/healthz", with: .silent)
            expected = "timed out"
        case .garbage:
            stub.respond(to: "/healthz", with: .raw("SSH-2.0-OpenSSH\r\n\r\n"))
            expected = "malformed response"
        }
        let result = try await LarderProcess.run(["health", "--url", stub.url(), "--timeout", "1"])
        #expect(result.status != 0)
        #expect(result.output.hasPrefix("unhealthy: "))
        #expect(result.output.contains(expected), "\(result.output)")
        #expect(result.output.split(separator: "\n").count == 1)
    }

    @Test(arguments: ["https://127.0.0.1:1/", "http://", "http://127.0.0.1:99999/", "ftp://x"])
    func badURLIsRefusedWithoutAConnection(_ url: String) async throws {
        let result = try await LarderProcess.run(["health", "--url", url])
        #expect(result.status != 0)
        #expect(result.output.contains("bad URL"), "\(result.output)")
    }
}
