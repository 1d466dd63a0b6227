import Foundation
import TestSupport
import Testing

/// What an operator reads about admin access: `serve --help` names every admin route of the contract,
/// and the start-up log says whether a token is needed or only loopback clients get in.
@Suite struct AdminAccessLineTests {
    /// Every path of `openapi.yaml` with an operation behind `adminBearer`, `{key}` written `<key>`.
    static func adminPaths() throws -> [String] {
        let text = try String(contentsOf: VersionTests.root.appendingPathComponent("openapi.yaml"), encoding: .utf8)
        var paths: [String] = []
        var current: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("  /"), line.hasSuffix(":") {
                current = String(line.dropFirst(2).dropLast()).replacingOccurrences(of: "{", with: "<")
                    .replacingOccurrences(of: "}", with: ">")
            } else if !line.hasPrefix(" ") {
                current = nil
            } else if let path = current, line.contains("- adminBearer: []"), paths.last != path {
                paths.append(path)
            }
        }
        return paths
    }

    @Test func serveHelpNamesEveryAdminRouteOfTheContract() async throws {
        let paths = try Self.adminPaths()
        #expect(paths.count >= 8, "\(paths)")
        let help = try await LarderProcess.run(["serve", "--help"])
        // Help wraps its lines: compare with the spaces between words, not the line breaks.
        let text = help.output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for path in paths { #expect(text.contains(path + ",") || text.contains(path + ")"), "\(path)") }
    }

    @Test func startLogSaysHowTheAdminAPIIsReached() async throws {
        let open = try await LarderProcess.start()
        defer { open.stop() }
        // Logged just after "listening on", which is what `start` waits for.
        #expect(await waitUntil(timeout: .seconds(5)) { open.logText.contains("admin API") })
        #expect(open.logText.contains("answers loopback clients only; set LARDER_ADMIN_TOKEN"), "\(open.logText)")
        #expect(open.logText.contains("/cache/<key>/meta"))
        let guarded = try await LarderProcess.start(environment: ["LARDER_ADMIN_TOKEN": "s3cret"])
        defer { guarded.stop() }
        #expect(await waitUntil(timeout: .seconds(5)) { guarded.logText.contains("admin API") })
        let line = try #require(guarded.logText.split(separator: "\n").first { $0.contains("admin API") })
        // Tokens are named with their scope, never shown.
        #expect(
            line.hasSuffix("requires Authorization: Bearer <token> from any client; tokens: admin (full)"), "\(line)")
        #expect(line.hasPrefix("20") && line.contains(" info "), "\(line)")
        #expect(!guarded.logText.contains("s3cret"))
    }
}
