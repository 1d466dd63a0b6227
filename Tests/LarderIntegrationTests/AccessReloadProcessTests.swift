import Foundation
import Glibc
import HTTPCore
import TestSupport
import Testing

/// SIGHUP on the real binary: the key and token files are read again while the process keeps serving (no
/// restart, the same process), what changed is logged without a secret, and a broken file is refused
/// with its line named while the keys in force keep working.
@Suite(.serialized) struct AccessReloadProcessTests {
    static let oldKey = "sighup-old-key-01234567"
    static let newKey = "sighup-new-key-76543210"

    /// A path `larder sign` signs with the first key of `keys`.
    static func signed(_ url: String, keys: String) async throws -> String {
        let signed = try await LarderProcess.run(["sign", "--key-file", keys, url])
        #expect(signed.status == 0, "\(signed.output)")
        return signed.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func sighupRotatesTheSigningKeyWithoutARestartAndABrokenFileKeepsIt() async throws {
        let origin = try StubOrigin()
        defer { origin.stop() }
        origin.respond(to: "/doc.txt", with: .ok("a"))
        let keys = try TemporaryFile("\(Self.oldKey)\n")
        let tokens = try TemporaryFile("billing=billing-s3cret-1\n")
        let newKeys = try TemporaryFile("\(Self.newKey)\n")
        let larder = try await LarderProcess.start(arguments: [
            "--allow-network", "127.0.0.0/8", "--url-signing-key-file", keys.path, "--fetch-token-file", tokens.path,
        ])
        defer { larder.stop() }
        let old = try await Self.signed(origin.url("/doc.txt"), keys: keys.path)
        let new = try await Self.signed(origin.url("/doc.txt"), keys: newKeys.path)
        #expect(try larder.request("GET", old).status == 200)
        #expect(try larder.request("GET", new).status == 403)

        try keys.write("\(Self.newKey)\n")
        try tokens.write("reports=reports-s3cret-2\n")
        #expect(kill(larder.process.processIdentifier, SIGHUP) == 0)
        let reloaded = await waitUntil(timeout: .seconds(10)) { larder.logText.contains("access reloaded") }
        #expect(reloaded, "\(larder.logText)")
        #expect(try larder.request("GET", new).status == 200)
        #expect(try larder.request("GET", old).status == 403)
        let tokened = try larder.request(
            "GET", "/fetch?url=" + origin.url("/doc.txt").percentEncoded(), headers: ["Larder-Token: reports-s3cret-2"])
        #expect(tokened.status == 200)
        #expect(
            larder.logText.contains(
                "signing keys 1 (1 added, 1 removed); fetch tokens reports (added reports; removed billing)"),
            "\(larder.logText)")

        try keys.write("\(Self.oldKey)\nshort-s3cret\n")
        #expect(kill(larder.process.processIdentifier, SIGHUP) == 0)
        let refused = await waitUntil(timeout: .seconds(10)) { larder.logText.contains("access not reloaded") }
        #expect(refused, "\(larder.logText)")
        #expect(larder.logText.contains("\(keys.path):2 holds a key shorter than 16 bytes"), "\(larder.logText)")
        #expect(try larder.request("GET", new).status == 200)
        #expect(try larder.request("GET", old).status == 403)
        let metrics = try larder.request("GET", "/metrics").text
        #expect(metrics.contains(#"larder_access_reloads_total{result="ok"} 1"#), "\(metrics)")
        #expect(metrics.contains(#"larder_access_reloads_total{result="failed"} 1"#), "\(metrics)")
        let log = larder.logText
        #expect(!log.contains(Self.oldKey))
        #expect(!log.contains(Self.newKey))
        #expect(!log.contains("s3cret"))
    }
}
