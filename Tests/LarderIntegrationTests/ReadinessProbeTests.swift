import Foundation
import TestSupport
import Testing

/// `larder serve`'s probes: `/livez` and its old name `/healthz` answer while the process runs, `/readyz`
/// is 200 on a writable store and 503 once SIGTERM started the drain.
@Suite struct ReadinessProbeTests {
    @Test func livenessAndReadinessAnswerAndReadinessFailsWhileDraining() async throws {
        let larder = try await LarderProcess.start(arguments: ["--shutdown-grace", "5"])
        for path in ["/livez", "/healthz"] {
            let live = try larder.request("GET", path)
            #expect(live.status == 200, "\(path)")
            #expect(live.text == #"{"status":"ok"}"#, "\(path)")
        }
        let ready = try larder.request("GET", "/readyz")
        #expect(ready.status == 200)
        #expect(ready.text.hasPrefix(#"{"status":"ready","reasons":[],"draining":false,"store":{"writable":true"#))

        // A probe already on its way when SIGTERM arrives is answered, and says the replica is leaving.
        let client = try RawSocketClient(port: larder.port, timeout: 10)
        defer { client.close() }
        // One whole exchange first: a connection still in the listen queue at SIGTERM is reset with the
        // listener. Then a partial head, read by the server before the signal.
        try client.send("GET /livez HTTP/1.1\r\nHost: test\r\n\r\n")
        #expect(try client.readResponse().status == 200)
        try client.send("GET /readyz HTTP/1.1\r\nHost: test\r\n")
        try await Task.sleep(for: .milliseconds(100))
        larder.process.terminate()
        #expect(await waitUntil(timeout: .seconds(10)) { larder.logText.contains("draining for up to") })
        try client.send("\r\n")
        let draining = try client.readResponse()
        #expect(draining.status == 503)
        #expect(draining.text.contains(#""reasons":["draining"]"#), "\(draining.text)")
        #expect(await larder.waitForExit())
        #expect(larder.process.terminationStatus == 0)
    }
}
