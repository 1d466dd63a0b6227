import Foundation
import HTTPCore
import LarderAPI
import TestSupport
import Testing

/// SSRF through `/fetch`: with no network allowed, every spelling of the stub origin's loopback address
/// is refused with 403 and not one connection reaches it.
@Suite struct FetchAddressPolicyTests {
    static let loopbackSpellings: [String] = [
        "127.0.0.1", "2130706433", "0x7f000001", "0x7f.0.0.1", "0177.0.0.1", "127.1", "127.0.1", "localhost",
        "127.0.0.1.", "0x7F.1.",
        "[::ffff:127.0.0.1]", "[::ffff:7f00:1]",
    ]

    @Test(arguments: loopbackSpellings) func loopbackInAnySpellingIsRefused(host: String) async throws {
        try await withFetchHarness(allowNetworks: []) { harness in
            harness.origin.respond(to: "/secret", with: .ok("secret"))
            let url = "http://\(host):\(harness.origin.port)/secret"
            let response = try harness.request("GET", "/fetch?url=" + url.percentEncoded())
            #expect(response.status == 403, "\(host): \(response.text)")
            #expect(response.text.contains("address-refused"))
            #expect(!response.text.contains("secret\""))
            #expect(harness.origin.connectionCount == 0)
            #expect(harness.origin.requestCount == 0)
        }
    }

    /// WHATWG URL §3.5: a host that ends in a number but is no IPv4 address is an invalid URL (400) before
    /// any lookup; not a 502 from a resolver.
    @Test(arguments: ["08.0.0.1", "1.2.3.4.5", "4294967296", "256.0.0.1", "127.0.0.1..", "0x7f.0.0.0.1"])
    func aHostEndingInANumberThatIsNoAddressIsAnInvalidURL(host: String) async throws {
        try await withFetchHarness { harness in
            let url = "http://\(host):\(harness.origin.port)/x"
            let response = try harness.request("GET", "/fetch?url=" + url.percentEncoded())
            #expect(response.status == 400, "\(host): \(response.text)")
            #expect(response.text.contains("invalid-url"))
            #expect(harness.origin.connectionCount == 0)
        }
    }

    @Test func aTrailingDotAddressReachesTheAllowedOriginUnderTheSameKey() async throws {
        try await withFetchHarness { harness in
            harness.origin.respond(to: "/d", with: .ok("dot").header("Cache-Control", "max-age=60"))
            let dotted = try harness.request(
                "GET", "/fetch?url=" + ("http://127.0.0.1.:\(harness.origin.port)/d").percentEncoded())
            #expect(dotted.status == 200)
            #expect(dotted.text == "dot")
            #expect(await harness.settle())
            let plain = try harness.request(
                "GET", "/fetch?url=" + ("http://2130706433:\(harness.origin.port)/d").percentEncoded())
            #expect(plain.header("X-Cache") == "HIT")
            #expect(plain.header("X-Cache-Key") == dotted.header("X-Cache-Key"))
            #expect(harness.origin.requestCount(for: "/d") == 1)
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
