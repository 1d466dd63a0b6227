import Foundation
import HTTPCore
import LarderTesting
import TestSupport
import Testing

/// Signed URLs and caller tokens through `serve`'s whole wiring, live on 127.0.0.1:0
/// (`LarderTestApp(serving:)`): keys and tokens from files, a path made by `larder sign` (the binary's
/// command) accepted, refusals counted in `/metrics`, and no secret in what the wiring logs. What only the
/// process does (its start-up line, refusing to start) is in `FetchAccessProcessTests`.
@Suite struct FetchAccessWiringTests {
    @Test func aURLSignedByLarderSignIsServedAndAnUnsignedOneIsRefused() async throws {
        let origin = try StubOrigin()
        defer { origin.stop() }
        origin.respond(to: "/doc.txt", with: .ok("a").header("Cache-Control", "max-age=60"))
        let keyFile = try TemporaryFile("# current\n\(FetchAccessProcessTests.signingKey)\n")
        let tokenFile = try TemporaryFile("billing=\(FetchAccessProcessTests.callerSecret)\n")
        let (keys, tokens) = (keyFile.path, tokenFile.path)
        let directory = StorageTestDirectory()
        let log = LogRecorder()
        let app = try LarderTestApp(
            serving: [
                "db": directory.file(), "allow-network": "127.0.0.0/8", "url-signing-key-file": keys,
                "fetch-token-file": tokens,
            ], logger: log.logger())
        let signed = try await LarderProcess.run([
            "sign", "--key-file", keys, "--expires-in", "600", origin.url("/doc.txt"),
        ])
        #expect(signed.status == 0, "\(signed.output)")
        let path = signed.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(path.hasPrefix("/fetch?url="), "\(path)")
        try await app.test(.live) { client in
            let served = try client.request("GET", path)
            #expect(served.status == 200)
            #expect(served.text == "a")
            let unsigned = try client.request("GET", "/fetch?url=" + origin.url("/doc.txt").percentEncoded())
            #expect(unsigned.status == 403)
            #expect(unsigned.text.contains("signature-invalid"))
            // The store writes behind the answer: a request right after the miss may still join its fetch.
            let tokenedHit = await waitUntil(timeout: .seconds(10)) {
                let tokened = try? client.request(
                    "GET", "/fetch?url=" + origin.url("/doc.txt").percentEncoded(),
                    headers: [("Larder-Token", FetchAccessProcessTests.callerSecret)])
                return tokened?.header("X-Cache") == "HIT"
            }
            #expect(tokenedHit)
            #expect(origin.requestCount == 1)
            #expect(origin.lastRequest?.headers.contains("Larder-Token") == false)
            let metrics = try client.request("GET", "/metrics")
            #expect(metrics.text.contains(#"larder_fetch_refusals_total{reason="missing"} 1"#), "\(metrics.text)")
        }
        #expect(!log.text.contains(FetchAccessProcessTests.signingKey))
        #expect(!log.text.contains(FetchAccessProcessTests.callerSecret))
    }
}
