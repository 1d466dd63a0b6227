import Foundation
import TestSupport
import Testing

/// `larder health`: 0 only when `/livez` (with `--ready`, `/readyz`) answers 200 in time, one line of reason otherwise.
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
        let ready = try await LarderProcess.run(["health", "--ready", "--url", server.url])
        #expect(ready.status == 0, "\(ready.output)")
        #expect(ready.output.contains("answered /readyz with 200"))
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
            stub.respond(to: "/livez", with: .status(503))
            expected = "answered /livez with 503"
        case .silent:
            stub.respond(to: "/livez", with: .silent)
            expected = "timed out"
        case .garbage:
            stub.respond(to: "/livez", with: .raw("SSH-2.0-OpenSSH\r\n\r\n"))
            expected = "malformed response"
        }
        let result = try await LarderProcess.run(["health", "--url", stub.url(), "--timeout", "1"])
        #expect(result.status != 0)
        #expect(result.output.hasPrefix("unhealthy: "))
        #expect(result.output.contains(expected), "\(result.output)")
        #expect(result.output.split(separator: "\n").count == 1)
    }

    @Test func notReadyIsUnhealthyWithTheReasonsOfReadyz() async throws {
        let stub = try StubOrigin()
        defer { stub.stop() }
        stub.respond(to: "/livez", with: .ok(bytes: Array(#"{"status":"ok"}"#.utf8)))
        stub.respond(
            to: "/readyz",
            with: StubOriginResponse(status: 503, body: Array(#"{"status":"not ready","reasons":["draining"]}"#.utf8)))
        let live = try await LarderProcess.run(["health", "--url", stub.url()])
        #expect(live.status == 0, "\(live.output)")
        let ready = try await LarderProcess.run(["health", "--ready", "--url", stub.url()])
        #expect(ready.status != 0)
        #expect(ready.output.contains(#"answered /readyz with 503 {"status":"not ready","reasons":["draining"]}"#))
    }

    @Test(arguments: ["http://", "http://127.0.0.1:99999/", "ftp://x", "http://user@127.0.0.1:1/"])
    func badURLIsRefusedWithoutAConnection(_ url: String) async throws {
        let result = try await LarderProcess.run(["health", "--url", url])
        #expect(result.status != 0)
        #expect(result.output.contains("bad URL"), "\(result.output)")
    }

    /// An https server behind a private CA: healthy with `--ca-file`, unhealthy with the TLS reason
    /// without it (`openssl s_server -www` answers 200 to any GET).
    @Test func httpsServerIsCheckedWithItsCAFile() async throws {
        let certificates = try TLSTestCertificates()
        let server = try TLSTestOrigin(certificates: certificates)
        let base = "https://127.0.0.1:\(server.port)"
        let trusted = try await LarderProcess.run(["health", "--url", base, "--ca-file", certificates.caFile])
        #expect(trusted.status == 0, "\(trusted.output)")
        #expect(trusted.output.hasPrefix("healthy: 127.0.0.1:\(server.port) answered /livez with 200"))
        let untrusted = try await LarderProcess.run(["health", "--url", base])
        #expect(untrusted.status != 0)
        #expect(untrusted.output.contains("TLS failed"), "\(untrusted.output)")
        #expect(untrusted.output.contains("certificate"), "\(untrusted.output)")
    }

    /// IPv6 loopback, in brackets, reaches a server listening on ::1.
    @Test func ipv6ServerIsReachedInBrackets() async throws {
        let directory = StorageTestDirectory()
        let listener = try await LarderProcess.start(arguments: ["--host", "::1"], database: directory.file())
        let result = try await LarderProcess.run(["health", "--url", "http://[::1]:\(listener.port)"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.hasPrefix("healthy: [::1]:\(listener.port)"), "\(result.output)")
    }
}
