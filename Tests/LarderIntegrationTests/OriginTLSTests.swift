import Foundation
import TestSupport
import Testing

/// `--origin-ca-file`, `--origin-ca-only` and the client certificate settings reach the origin client of
/// `larder serve`, against an https origin on 127.0.0.1 signed by a CA the test makes; unusable files stop
/// the start naming the setting.
@Suite struct OriginTLSTests {
    static let allowLoopback = ["--allow-network", "127.0.0.0/8"]

    @Test func privateCAOriginIsFetchedWithItsCAFileAndRefusedWithout() async throws {
        let certificates = try TLSTestCertificates()
        let origin = try TLSTestOrigin(certificates: certificates)

        let plain = try await LarderProcess.start(arguments: Self.allowLoopback)
        let refused = try plain.fetch(origin.url("/private"))
        plain.stop()
        #expect(refused.status == 502)
        #expect(refused.text.contains("certificate"), "\(refused.text)")

        let larder = try await LarderProcess.start(
            arguments: Self.allowLoopback, environment: ["LARDER_ORIGIN_CA_FILE": certificates.caFile])
        defer { larder.stop() }
        let fetched = try larder.fetch(origin.url("/private"))
        #expect(fetched.status == 200, "\(fetched.text)")
        #expect(fetched.header("X-Cache") != nil)
    }

    @Test func clientCertificateSettingsAnswerAnOriginThatRequiresOne() async throws {
        let certificates = try TLSTestCertificates()
        let origin = try TLSTestOrigin(certificates: certificates, requiresClientCertificate: true)
        let larder = try await LarderProcess.start(
            arguments: Self.allowLoopback + [
                "--origin-ca-file", certificates.caFile, "--origin-ca-only", "true", "--origin-client-cert",
                certificates.clientCertificateFile, "--origin-client-key", certificates.clientKeyFile,
            ])
        defer { larder.stop() }
        let fetched = try larder.fetch(origin.url("/mtls"))
        #expect(fetched.status == 200, "\(fetched.text)")
    }

    @Test func unusableCertificateSettingsStopTheStart() async throws {
        let directory = StorageTestDirectory()
        let missing = directory.file("absent.pem")
        let cases: [([String], String)] = [
            (["--origin-ca-file", missing], "--origin-ca-file: \(missing) cannot be read"),
            (["--origin-ca-only", "true"], "--origin-ca-only: needs origin-ca-file"),
            (["--origin-client-key", missing], "--origin-client-key: needs origin-client-cert"),
        ]
        for (arguments, expected) in cases {
            let result = try await LarderProcess.run(
                ["serve", "--host", "127.0.0.1", "--port", "0", "--db", directory.file("never.db")] + arguments)
            #expect(result.status != 0)
            #expect(result.output.contains(expected), "\(result.output)")
            #expect(!result.output.contains("listening on"))
        }
    }
}
