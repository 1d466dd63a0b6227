import TestSupport
import Testing
import Upstream

/// Trust and client certificates against a real TLS origin (`openssl s_server` on 127.0.0.1) whose CA
/// each test makes. A second CA stands in for the system store (`systemCertificateDirectory`), so that
/// "added to the system's" and "only this file" can be told apart without the internet.
struct OriginClientTLSTests {
    /// The private CA's origin, the "system" CA's origin, and both CAs.
    struct Origins {
        let privateCA: TLSTestCertificates
        let systemCA: TLSTestCertificates
        let privateOrigin: TLSTestOrigin
        let systemOrigin: TLSTestOrigin

        init(requiresClientCertificate: Bool = false) throws {
            privateCA = try TLSTestCertificates(name: "Private CA")
            systemCA = try TLSTestCertificates(name: "System CA")
            privateOrigin = try TLSTestOrigin(
                certificates: privateCA, requiresClientCertificate: requiresClientCertificate)
            systemOrigin = try TLSTestOrigin(certificates: systemCA)
        }
    }

    func makeClient(_ tls: OriginTLS) -> OriginClient {
        OriginClient(
            configuration: OriginClient.Configuration(
                limits: OriginLimits(connectTimeout: .seconds(5), totalTimeout: .seconds(10)),
                addressPolicy: AddressPolicy(allowNetworks: [CIDR("127.0.0.0/8")!]), viaName: "larder-test",
                tls: tls))
    }

    func fetch(_ url: String, with client: OriginClient) async throws -> Result<OriginFetchMetrics, OriginError> {
        let delegate = RecordingFetchDelegate()
        client.fetch(OriginRequest(url: url), delegate: delegate)
        return try #require(await delegate.finished())
    }

    @Test func privateOriginIsRefusedWithoutItsCA() async throws {
        let origins = try Origins()
        let client = makeClient(OriginTLS(systemCertificateDirectory: origins.systemCA.storeDirectory))
        let result = try await fetch(origins.privateOrigin.url(), with: client)
        // A certificate refused before any response head is a disconnection (RFC 9111 §4.2.4: a stale
        // entry may answer it), so it is `connectionLost`, its detail naming the certificate.
        guard case .failure(.connectionLost(let detail)) = result else {
            Issue.record("expected a certificate failure, got \(result)")
            return
        }
        #expect(detail.contains("certificate"), "\(detail)")
    }

    @Test func caFileIsAddedToTheSystemStore() async throws {
        let origins = try Origins()
        let client = makeClient(
            OriginTLS(caFile: origins.privateCA.caFile, systemCertificateDirectory: origins.systemCA.storeDirectory))
        let privateResult = try await fetch(origins.privateOrigin.url(), with: client)
        #expect(try privateResult.get().status == 200)
        let systemResult = try await fetch(origins.systemOrigin.url(), with: client)
        #expect(try systemResult.get().status == 200)
    }

    @Test func caFileOnlyDropsTheSystemStore() async throws {
        let origins = try Origins()
        let client = makeClient(
            OriginTLS(
                caFile: origins.privateCA.caFile, trustsOnlyCAFile: true,
                systemCertificateDirectory: origins.systemCA.storeDirectory))
        #expect(try await fetch(origins.privateOrigin.url(), with: client).get().status == 200)
        let systemResult = try await fetch(origins.systemOrigin.url(), with: client)
        guard case .failure(.connectionLost(let detail)) = systemResult else {
            Issue.record("the system CA's origin must be refused, got \(systemResult)")
            return
        }
        #expect(detail.contains("certificate"), "\(detail)")
    }

    @Test func clientCertificateIsShownToAnOriginThatRequiresOne() async throws {
        let origins = try Origins(requiresClientCertificate: true)
        let withoutCertificate = makeClient(OriginTLS(caFile: origins.privateCA.caFile))
        let refused = try await fetch(origins.privateOrigin.url(), with: withoutCertificate)
        #expect(throws: OriginError.self) { try refused.get() }

        let withCertificate = makeClient(
            OriginTLS(
                caFile: origins.privateCA.caFile, clientCertificateFile: origins.privateCA.clientCertificateFile,
                clientKeyFile: origins.privateCA.clientKeyFile))
        let accepted = try await fetch(origins.privateOrigin.url(), with: withCertificate)
        #expect(try accepted.get().status == 200)
    }

    @Test func validationNamesTheSettingAndTheFile() throws {
        let certificates = try TLSTestCertificates()
        #expect(throws: Never.self) {
            try OriginTLS(
                caFile: certificates.caFile, clientCertificateFile: certificates.clientCertificateFile,
                clientKeyFile: certificates.clientKeyFile
            ).validate()
        }
        let cases: [(OriginTLS, String, String)] = [
            (OriginTLS(trustsOnlyCAFile: true), "origin-ca-only", "needs origin-ca-file"),
            (OriginTLS(clientKeyFile: certificates.clientKeyFile), "origin-client-key", "needs origin-client-cert"),
            (OriginTLS(caFile: certificates.directory + "/missing.pem"), "origin-ca-file", "cannot be read"),
            // A key is not a certificate, and a certificate without a key cannot be shown.
            (OriginTLS(caFile: certificates.clientKeyFile), "origin-ca-file", "no PEM block"),
            (OriginTLS(clientCertificateFile: certificates.clientCertificateFile), "origin-client-cert", "PRIVATE KEY"),
            (
                OriginTLS(
                    clientCertificateFile: certificates.clientCertificateFile, clientKeyFile: certificates.caFile),
                "origin-client-key", "PRIVATE KEY"
            ),
        ]
        for (tls, setting, reason) in cases {
            let error = #expect(throws: OriginTLSError.self) { try tls.validate() }
            #expect(error?.setting == setting)
            #expect(error?.description.contains(reason) == true, "\(String(describing: error))")
        }
    }
}
