import Foundation
import LarderAPI
import TestSupport
import Testing

/// SSRF through `/fetch`: with no network allowed, every spelling of the stub origin's loopback address
/// is refused with 403 and not one connection reaches it.
@Suite struct FetchAddressPolicyTests {
    static let loopbackSpellings: [String] = [
        "127.0.0.1", "2130706433", "0x7f000001", "0x7f.0.0.1", "0177.0.0.1", "127.1", "127.0.1", "localhost",
        "[::ffff:127.0.0.1]", "[::ffff:7f00:1]",
    ]

    @Test(arguments: loopbackSpellings) func loopbackInAnySpellingIsRefused(host: String) async throws {
        try await withFetchHarness(allowNetworks: []) { harness in
            harness.origin.respond(to: "/secret", with: .ok("secret"))
            let url = "http://\(host):\(harness.origin.port)/secret"
            let response = try harness.request("GET", "/fetch?url=" + FetchTestHarness.encode(url))
            #expect(response.status == 403, "\(host): \(response.text)")
            #expect(response.text.contains("address-refused"))
            #expect(!response.text.contains("secret\""))
            #expect(harness.origin.connectionCount == 0)
            #expect(harness.origin.requestCount == 0)
        }
    }

    @Test func redirectToAPrivateAddressIsRelayedNeverFollowed() async throws {
        try await withFetchHarness { harness in
            harness.origin.respond(to: "/go", with: .redirect(to: "http://169.254.169.254/latest/meta-data/"))
            let response = try harness.fetch("/go")
            #expect(response.status == 302)
            #expect(response.header("Location") == "http://169.254.169.254/latest/meta-data/")
            #expect(harness.origin.requestCount == 1)
        }
    }
}
