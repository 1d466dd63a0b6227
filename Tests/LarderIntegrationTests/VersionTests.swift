import Foundation
import TestSupport
import Testing

/// One version everywhere: `larder --version`, `larder version`, `larder_build_info` on `/metrics`,
/// `info.version` of the served `/openapi.yaml` and the newest heading of `CHANGELOG.md`.
@Suite struct VersionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func versionIsTheSameInTheCommandTheMetricsTheContractAndTheChangelog() async throws {
        let flag = try await LarderProcess.run(["--version"])
        #expect(flag.status == 0)
        let version = flag.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(
            version.split(separator: ".").count == 3 && version.allSatisfy { $0.isNumber || $0 == "." }, "\(version)")
        let command = try await LarderProcess.run(["version"])
        #expect(command.status == 0)
        #expect(command.output == version + "\n")

        let server = try await LarderProcess.start()
        defer { server.stop() }
        let metrics = try server.request("GET", "/metrics").text
        #expect(metrics.contains("larder_build_info{version=\"\(version)\"} 1\n"), "\(metrics.prefix(400))")
        let contract = try server.request("GET", "/openapi.yaml").text
        #expect(contract.contains("\ninfo:\n  title: Larder\n  version: \(version)\n"))

        let changelog = try String(contentsOf: Self.root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let newest = changelog.split(separator: "\n").first { $0.hasPrefix("## ") }
        #expect(newest?.hasPrefix("## \(version) ") == true || newest == "## \(version)", "\(newest ?? "none")")
    }
}
