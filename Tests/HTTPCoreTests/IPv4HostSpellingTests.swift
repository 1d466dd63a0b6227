import HTTPCore
import Testing

/// The WHATWG URL Standard's IPv4 parser (§3.5): which hosts are addresses, in which spelling, and which
/// end in a number without being one.
@Suite struct IPv4HostSpellingTests {
    @Test(arguments: [
        ("127.0.0.1", "127.0.0.1"), ("127.0.0.1.", "127.0.0.1"), ("127.1", "127.0.0.1"), ("127.0.1", "127.0.0.1"),
        ("2130706433", "127.0.0.1"), ("0x7f000001", "127.0.0.1"), ("0X7F.1", "127.0.0.1"), ("0177.0.0.1", "127.0.0.1"),
        ("0x7f.0.0.1", "127.0.0.1"), ("4294967295", "255.255.255.255"), ("0", "0.0.0.0"), ("0x", "0.0.0.0"),
        ("1.2.3.0x4", "1.2.3.4"), ("192.168.257", "192.168.1.1"), ("010.0.0.1", "8.0.0.1"),
    ])
    func numericSpellingsAreThatAddress(host: String, dotted: String) throws {
        guard case .address(let address) = IPv4HostSpelling(host: host[...]) else {
            Issue.record("\(host) is not an address")
            return
        }
        #expect(IPv4HostSpelling.dotted(address) == dotted)
    }

    @Test(arguments: [
        ("127.0.0.1", true), ("0.0.0.0", true), ("255.255.255.255", true), ("10.0.0.10", true),
        ("127.0.0.1.", false), ("127.1", false), ("010.0.0.1", false), ("256.0.0.1", false), ("1.2.3.4.5", false),
        ("1.2.3.", false), (".1.2.3", false), ("1..2.3", false), ("1.2.3.1000", false), ("example.com", false),
    ])
    func dottedDecimalIsOnlyTheCanonicalSpelling(host: String, canonical: Bool) {
        let address = IPv4HostSpelling.dottedDecimal(host[...])
        #expect((address != nil) == canonical)
        if let address { #expect(IPv4HostSpelling.dotted(address) == host) }
    }

    @Test(arguments: [
        "08.0.0.1",  // 8 is no octal digit
        "1.2.3.4.5",  // five parts
        "4294967296",  // 2^32
        "256.0.0.1",  // a part other than the last above 255
        "1.2.65536",  // the last part past its two bytes
        "1.2.3.09", "0x1g.0.0.1", "a.b.0x1", "example.123", "1..2.3", "192.168.0.257", "a.0x", "99999999999999999999",
    ])
    func hostsEndingInANumberThatAreNoAddressAreInvalid(host: String) {
        #expect(IPv4HostSpelling(host: host[...]) == .invalid)
    }

    /// A last label that is no number makes a name, even a malformed one (`127.0.0.1..`, `1.0x1g`): the
    /// name rules refuse those.
    @Test(arguments: [
        "example.com", "localhost", "1e100.net", "127.0.0.1.nip.io", "x1", "example.com.", "127.0.0.1..", "1.0x1g",
    ])
    func namesAreNames(host: String) {
        #expect(IPv4HostSpelling(host: host[...]) == .name)
    }
}
