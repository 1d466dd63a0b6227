import Testing
import Upstream

struct AddressPolicyTests {
    typealias Kind = SpecialPurposeRange.Kind

    @Test(arguments: [
        ("0.0.0.0", Kind.unspecified), ("0.1.2.3", .thisNetwork), ("10.0.0.1", .privateNetwork),
        ("10.255.255.255", .privateNetwork), ("100.64.0.1", .sharedAddressSpace),
        ("100.127.255.255", .sharedAddressSpace),
        ("100.100.100.200", .sharedAddressSpace), ("127.0.0.1", .loopback), ("127.255.255.254", .loopback),
        ("169.254.169.254", .cloudMetadata), ("169.254.1.1", .linkLocal), ("172.16.0.1", .privateNetwork),
        ("172.31.255.255", .privateNetwork), ("192.0.0.8", .protocolAssignments), ("192.0.2.55", .documentation),
        ("192.88.99.1", .reserved), ("192.168.1.1", .privateNetwork), ("198.18.0.1", .benchmarking),
        ("198.19.255.255", .benchmarking), ("198.51.100.7", .documentation), ("203.0.113.9", .documentation),
        ("224.0.0.1", .multicast), ("239.255.255.250", .multicast), ("240.0.0.1", .reserved),
        ("255.255.255.254", .reserved), ("255.255.255.255", .broadcast), ("168.63.129.16", .cloudMetadata),
    ])
    func specialIPv4IsRefused(address: String, kind: Kind) throws {
        let verdict = AddressPolicy().verdict(for: try #require(IPAddress(address)))
        guard case .refused(let refusal) = verdict else {
            Issue.record("\(address) was \(verdict)")
            return
        }
        #expect(refusal.kind == kind)
    }

    @Test(arguments: [
        "8.8.8.8", "1.1.1.1", "100.63.255.255", "100.128.0.0", "172.15.255.255", "172.32.0.0", "192.0.1.255",
        "192.169.0.1", "198.17.255.255", "198.20.0.0", "9.9.9.9", "223.255.255.255", "169.253.255.255", "11.0.0.0",
        "1.0.0.0", "126.255.255.255", "128.0.0.0",
    ])
    func globalIPv4IsAllowed(address: String) throws {
        #expect(AddressPolicy().verdict(for: try #require(IPAddress(address))) == .allowed(.globallyRoutable))
    }

    @Test(arguments: [
        ("::", Kind.unspecified), ("::1", .loopback), ("::ffff:127.0.0.1", .loopback),
        ("::ffff:10.1.2.3", .privateNetwork),
        ("::ffff:169.254.169.254", .cloudMetadata), ("::ffff:0.0.0.0", .unspecified), ("::127.0.0.1", .loopback),
        ("::2", .thisNetwork), ("::ffff:0:127.0.0.1", .loopback), ("64:ff9b::7f00:1", .loopback),
        ("64:ff9b::a9fe:a9fe", .cloudMetadata), ("64:ff9b::10.0.0.1", .privateNetwork),
        ("64:ff9b:1::1", .localUseNAT64),
        ("64:ff9b:1:ffff::8.8.8.8", .localUseNAT64), ("2002:7f00:1::", .loopback),
        ("2002:c0a8:0101::1", .privateNetwork), ("2002:a9fe:a9fe::1", .cloudMetadata),
        ("2001:0:4136:e378:8000:63bf:3fff:fdd2", .teredo), ("2001::1", .teredo), ("2001:db8::1", .documentation),
        ("3fff::1", .documentation), ("100::1", .discardOnly), ("2001:2::1", .protocolAssignments),
        ("2001:10::1", .protocolAssignments), ("fc00::1", .uniqueLocal), ("fd12:3456::1", .uniqueLocal),
        ("fd00:ec2::254", .cloudMetadata), ("fe80::1", .linkLocal), ("febf::1", .linkLocal), ("fec0::1", .siteLocal),
        ("ff02::1", .multicast), ("ff0e::1", .multicast), ("4000::1", .notGlobalUnicast), ("1::1", .notGlobalUnicast),
        ("5f00::1", .notGlobalUnicast), ("e000::1", .notGlobalUnicast),
    ])
    func specialIPv6IsRefused(address: String, kind: Kind) throws {
        let verdict = AddressPolicy().verdict(for: try #require(IPAddress(address)))
        guard case .refused(let refusal) = verdict else {
            Issue.record("\(address) was \(verdict)")
            return
        }
        #expect(refusal.kind == kind)
    }

    @Test(arguments: [
        "2606:4700:4700::1111", "2001:4860:4860::8888", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1",
        "2620:4f:8000::1", "2001:200::1", "2a00:1450::1", "3ffe:ffff::1",
    ])
    func globalIPv6IsAllowed(address: String) throws {
        #expect(AddressPolicy().verdict(for: try #require(IPAddress(address))) == .allowed(.globallyRoutable))
    }

    @Test func embeddedRefusalNamesTheFormAndTheIPv4() throws {
        let verdict = AddressPolicy().verdict(for: try #require(IPAddress("64:ff9b::7f00:1")))
        #expect(verdict == .refused(.embedded(.nat64, IPv4Address(127, 0, 0, 1), try #require(loopbackRefusal()))))
        #expect(verdict.description.contains("NAT64 127.0.0.1"))
        #expect(verdict.description.contains("loopback"))
    }

    @Test(arguments: [
        ("127.0.0.1", true), ("127.9.9.9", true), ("::ffff:127.0.0.1", true), ("64:ff9b::7f00:1", true),
        ("2002:7f00:1::", true), ("10.0.0.1", false), ("::1", false), ("169.254.169.254", false),
    ])
    func allowNetworksOpenRangesIncludingEmbeddedForms(address: String, allowed: Bool) throws {
        let policy = AddressPolicy(allowNetworks: [try #require(CIDR("127.0.0.0/8"))])
        #expect(policy.verdict(for: try #require(IPAddress(address))).isAllowed == allowed)
    }

    @Test func allowNetworkIsNamedInTheVerdict() throws {
        let network = try #require(CIDR("fd00::/8"))
        let policy = AddressPolicy(allowNetworks: [network])
        #expect(policy.verdict(for: try #require(IPAddress("fd00::5"))) == .allowed(.allowNetwork(network)))
        #expect(policy.verdict(for: try #require(IPAddress("fc00::5"))).isAllowed == false)
    }

    @Test func allowingAllOfIPv4LeavesIPv6LoopbackRefused() throws {
        let policy = AddressPolicy(allowNetworks: [try #require(CIDR("0.0.0.0/0"))])
        #expect(policy.verdict(for: try #require(IPAddress("10.0.0.1"))).isAllowed)
        #expect(!policy.verdict(for: try #require(IPAddress("::1"))).isAllowed)
    }

    private func loopbackRefusal() -> AddressRefusal? {
        guard case .refused(let refusal) = AddressPolicy().verdict(for: .v4(IPv4Address(127, 0, 0, 1))) else {
            return nil
        }
        return refusal
    }
}

struct AddressPolicyResolutionTests {
    @Test(arguments: ["2130706433", "127.1", "0x7f.0.0.1", "127.0.0.1", "[::1]"])
    func resolvedLoopbackSpellingsAreRefused(host: String) {
        let verdicts = AddressPolicy().verdicts(resolving: host)
        #expect(!verdicts.isEmpty)
        #expect(verdicts.allSatisfy { !$0.verdict.isAllowed })
        #expect(verdicts.allSatisfy { if case .refused(let r) = $0.verdict { r.kind == .loopback } else { false } })
    }

    @Test func numericSpellingResolvesToTheDottedQuad() {
        #expect(AddressPolicy().verdicts(resolving: "2130706433").map(\.address) == [.v4(IPv4Address(127, 0, 0, 1))])
    }
}
