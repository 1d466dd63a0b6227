import Foundation
import HTTPCore
import TestSupport
import Testing

/// Signed URLs and caller tokens on the real binary: keys and tokens from files, `larder sign` producing
/// a path the server accepts, refusals counted in `/metrics`, and no secret in the log.
@Suite(.serialized) struct FetchAccessProcessTests {
    static let signingKey = "process-signing-key-0123"
    static let callerSecret = "process-caller-s3cret"

    static func file(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("larder-\(UUID().uuidString)").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func aURLSignedByLarderSignIsServedAndAnUnsignedOneIsRefused() async throws {
        let origin = try StubOrigin()
        defer { origin.stop() }
        origin.respond(to: "/doc.txt", with: .ok("a").header("Cache-Control", "max-age=60"))
        let keys = try Self.file("# current\n\(Self.signingKey)\n")
        let tokens = try Self.file("billing=\(Self.callerSecret)\n")
        defer {
            try? FileManager.default.removeItem(atPath: keys)
            try? FileManager.default.removeItem(atPath: tokens)
        }
        let larder = try await LarderProcess.start(arguments: [
            "--allow-network", "127.0.0.0/8", "--url-signing-key-file", keys, "--fetch-token-file", tokens,
            "--log-format", "json",
        ])
        defer { larder.stop() }
        let signed = try await LarderProcess.run([
            "sign", "--key-file", keys, "--expires-in", "600", origin.url("/doc.txt"),
        ])
        #expect(signed.status == 0, "\(signed.output)")
        let path = signed.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(path.hasPrefix("/fetch?url="), "\(path)")
        let served = try larder.request("GET", path)
        #expect(served.status == 200)
        #expect(served.text == "a")
        let unsigned = try larder.fetch(origin.url("/doc.txt"))
        #expect(unsigned.status == 403)
        #expect(unsigned.text.contains("signature-invalid"))
        // The store writes behind the answer: a request right after the miss may still join its fetch.
        let tokenedHit = await waitUntil(timeout: .seconds(10)) {
            let tokened = try? larder.request(
                "GET", "/fetch?url=" + origin.url("/doc.txt").percentEncoded(),
                headers: ["Larder-Token: \(Self.callerSecret)"])
            return tokened?.header("X-Cache") == "HIT"
        }
        #expect(tokenedHit)
        #expect(origin.requestCount == 1)
        #expect(origin.lastRequest?.headers.contains("Larder-Token") == false)
        let metrics = try larder.request("GET", "/metrics")
        #expect(metrics.text.contains(#"larder_fetch_refusals_total{reason="missing"} 1"#), "\(metrics.text)")
        let log = larder.logText
        #expect(log.contains("/fetch requires a signed URL (1 key) or a Larder-Token (billing)"), "\(log)")
        #expect(!log.contains(Self.signingKey))
        #expect(!log.contains(Self.callerSecret))
    }

    @Test func aBadKeyFileStopsTheStartNamingTheLineButNotTheKey() async throws {
        let keys = try Self.file("\(Self.signingKey)\nshort-s3cret\n")
        defer { try? FileManager.default.removeItem(atPath: keys) }
        let result = try await LarderProcess.run(["serve", "--port", "0", "--url-signing-key-file", keys])
        #expect(result.status != 0)
        #expect(result.output.contains("\(keys):2 holds a key shorter than 16 bytes"), "\(result.output)")
        #expect(!result.output.contains("s3cret"))
        #expect(!result.output.contains("listening on"))
    }
}
