import Testing
import Upstream

struct CIDRTests {
    @Test(arguments: [
        ("10.0.0.0/8", "10.1.2.3", true), ("10.0.0.0/8", "11.0.0.0", false), ("10.0.0.0/8", "9.255.255.255", false),
        ("127.0.0.1/8", "127.200.0.1", true), ("0.0.0.0/0", "203.0.113.1", true), ("0.0.0.0/0", "::1", false),
        ("192.0.2.1", "192.0.2.1", true), ("192.0.2.1", "192.0.2.2", false), ("100.64.0.0/10", "100.127.0.1", true),
        ("100.64.0.0/10", "100.128.0.1", false), ("::/0", "::1", true), ("::/0", "127.0.0.1", false),
        ("fe80::/10", "febf::1", true), ("fe80::/10", "fec0::1", false), ("fc00::/7", "fdff::1", true),
        ("2001:db8::/32", "2001:db9::1", false), ("2001:db8:0:0:8000::/65", "2001:db8::8000:0:0:1", true),
        ("2001:db8:0:0:8000::/65", "2001:db8::7fff:0:0:1", false), ("::1/128", "::1", true), ("::1/128", "::2", false),
    ])
    func containment(cidr: String, address: String, contained: Bool) throws {
        let block = try #require(CIDR(cidr))
        let ip = try #require(IPAddress(address))
        #expect(block.contains(ip) == contained)
    }

    @Test func hostBitsAreCleared() {
        #expect(CIDR("127.0.0.1/8")?.description == "127.0.0.0/8")
        #expect(CIDR("2001:db8::1/32")?.description == "2001:db8::/32")
        #expect(CIDR("10.1.2.3")?.description == "10.1.2.3/32")
    }

    @Test(arguments: [
        "10.0.0.0/33", "10.0.0.0/", "/8", "::/129", "10.0.0.0/-1", "10.0.0/8", "10.0.0.0/8/8", "x/8", "10.0.0.0/ 8",
    ])
    func malformedBlocksAreRefused(text: String) {
        #expect(CIDR(text) == nil)
    }
}
