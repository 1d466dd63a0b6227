import Foundation
import HTTPServer
import LarderAPI
import TestSupport
import Testing

extension FaultSuites {
    /// `/readyz` over a real SQLite store: 503 while the server drains, while a probe write fails
    /// (`PRAGMA query_only`: running as root, a file mode cannot make an open database read-only) and
    /// after a store write failed, until one succeeds; the backlog is reported and never flips it.
    @Suite struct ReadinessHandlerTests {
        @Test func aWritableStoreIsReadyAndReportsItsBacklog() async throws {
            try await withFaultHarness { harness in
                let ready = try harness.readyz()
                #expect(ready.status == 200)
                #expect(ready.header("Content-Type") == "application/json")
                #expect(ready.header("Cache-Control") == "no-store")
                #expect(ready.text.contains(#""status":"ready","reasons":[],"draining":false"#), "\(ready.text)")
                #expect(ready.text.contains(#""writable":true,"lastWriteFailed":false,"backlogBytes":0"#))
                #expect(ready.text.contains(#""backlogLimitBytes":67108864"#))
            }
        }

        @Test func aQueryOnlyDatabaseIsNotReadyUntilItTakesWritesAgain() async throws {
            try await withFaultHarness { harness in
                try harness.onWriter("PRAGMA query_only = 1")
                let refused = try harness.readyz()
                #expect(refused.status == 503)
                #expect(refused.text.contains(#""status":"not ready","reasons":["a probe write to the store failed"]"#))
                #expect(refused.text.contains(#""writable":false"#))
                #expect(refused.text.lowercased().contains("readonly"), "\(refused.text)")
                #expect(harness.isHealthy(), "liveness does not follow the store")

                try harness.onWriter("PRAGMA query_only = 0")
                #expect(try harness.readyz().status == 200)
                #expect(try harness.integrityCheck() == ["ok"])
            }
        }

        @Test func aFailedStoreWriteIsNotReadyUntilAWriteSucceeds() async throws {
            try await withFaultHarness { harness in
                let body = faultBytes(count: 300_000, seed: 11)
                harness.origin.respond(to: "/a", with: .ok(bytes: body).header("Cache-Control", "max-age=600"))
                harness.origin.respond(to: "/b", with: .ok(bytes: body).header("Cache-Control", "max-age=600"))
                // The file may not grow: the 300 KB body cannot be stored, though the probe (which
                // rolls back) still passes.
                try harness.onWriter("PRAGMA max_page_count = 1")
                #expect(try sameBytes(harness.fetch("/a").body, body))
                #expect(await harness.settle())
                #expect(harness.service.metrics.storeWriteFailureCount >= 1)
                let refused = try harness.readyz()
                #expect(refused.status == 503)
                #expect(refused.text.contains(#""reasons":["the last store write failed"]"#), "\(refused.text)")

                try harness.onWriter("PRAGMA max_page_count = 1073741823")
                #expect(try sameBytes(harness.fetch("/b").body, body))
                #expect(await harness.settle())
                #expect(try harness.storedBody("/b") == body)
                #expect(try harness.readyz().status == 200)
            }
        }

        @Test func aDrainingServerIsNotReady() async throws {
            try await withFaultHarness { harness in
                // A request begun before the drain is still read and answered; new connections are refused.
                let client = try RawSocketClient(port: harness.server.port, timeout: 10)
                defer { client.close() }
                // One whole exchange first: a connection still in the listen queue when the drain starts
                // is reset with the listener, and this one must be the server's.
                try client.send("GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
                #expect(try client.readResponse().status == 200)
                try client.send("GET /readyz HTTP/1.1\r\nHost: test\r\n")
                #expect(!harness.readiness.isDraining)
                let server = harness.server
                // The partial head must be in the server's hands before the drain decides what is idle.
                try await Task.sleep(for: .milliseconds(100))
                let drained = Task { await server.shutdown(grace: 5) }
                #expect(await waitUntil(timeout: .seconds(5)) { harness.readiness.isDraining })
                try client.send("\r\n")
                let refused = try client.readResponse()
                #expect(refused.status == 503)
                #expect(refused.header("Connection") == "close")
                #expect(refused.text.contains(#""reasons":["draining"],"draining":true"#), "\(refused.text)")
                await drained.value
            }
        }
    }
}

extension FaultHarness {
    /// `GET /readyz` on a new connection.
    func readyz() throws -> RawHTTPResponse {
        let client = try open("/readyz")
        defer { client.close() }
        return try client.readResponse()
    }
}
