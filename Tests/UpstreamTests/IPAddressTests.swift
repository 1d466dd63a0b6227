import Testing
import Upstream

struct IPAddressTests {
    @Test(arguments: [
        ("0.0.0.0", 0 as UInt32), ("127.0.0.1", 0x7F00_0001), ("255.255.255.255", 0xFFFF_FFFF),
        ("192.0.2.33", 0xC000_0221), ("10.20.30.40", 0x0A14_1E28),
    ])
    func strictDottedQuadParses(text: String, value: UInt32) {
        #expect(IPv4Address(text)?.value == value)
        #expect(IPv4Address(text)?.description == text)
    }

    @Test(arguments: [
        "127.1", "0x7f.0.0.1", "0177.0.0.1", "2130706433", "1.2.3.4.5", "256.1.1.1", "1.2.3", "", "1..2.3",
        " 1.2.3.4", "1.2.3.-4", "01.2.3.4", "1.2.3.4 ", "1.2.3.4/8", "::1", "1.2.3.1000",
    ])
    func otherIPv4SpellingsAreRefused(text: String) {
        #expect(IPv4Address(text) == nil)
    }

    @Test(arguments: [
        ("2001:db8::1", "2001:db8::1"),
        ("2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1"),
        ("::", "::"), ("::1", "::1"), ("1::", "1::"),
        ("::ffff:1.2.3.4", "::ffff:1.2.3.4"), ("::FFFF:0102:0304", "::ffff:1.2.3.4"),
        ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"),
        ("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"),
        ("FE80::ABCD", "fe80::abcd"), ("1:2:3:4:5:6:7::", "1:2:3:4:5:6:7:0"),
        ("64:ff9b::192.0.2.1", "64:ff9b::c000:201"), ("1:0:0:2:0:0:0:3", "1:0:0:2::3"),
    ])
    func ipv6ParsesToCanonicalText(text: String, canonical: String) {
        #expect(IPv6Address(text)?.description == canonical)
    }

    @Test(arguments: [
        ":::", "1:2:3:4:5:6:7:8:9", "1::2::3", "12345::", "g::1", "fe80::1%eth0", "1:2:3:4:5:6:7", "::ffff:1.2.3",
        "[::1", "1.2.3.4::", ":1::", "1::2:", "", "::1.2.3.4:5", "1:2:3:4:5:6:7:8::",
    ])
    func malformedIPv6IsRefused(text: String) {
        #expect(IPv6Address(text) == nil)
    }

    @Test func bracketedIPv6IsAcceptedAsIPAddress() {
        #expect(IPAddress("[::1]") == .v6(IPv6Address(high: 0, low: 1)))
        #expect(IPAddress("10.0.0.1") == .v4(IPv4Address(10, 0, 0, 1)))
        #expect(IPAddress("localhost") == nil)
    }

    @Test(arguments: [
        ("127.0.0.1:8080", "127.0.0.1:8080"), ("[::1]:443", "[::1]:443"), ("0.0.0.0:80", "0.0.0.0:80"),
    ])
    func endpointsParse(text: String, canonical: String) {
        #expect(IPEndpoint(text)?.description == canonical)
    }

    @Test(arguments: ["127.0.0.1", "::1:80", "127.0.0.1:0", "127.0.0.1:70000", "host:80", "[::1]"])
    func malformedEndpointsAreRefused(text: String) {
        #expect(IPEndpoint(text) == nil)
    }
}
