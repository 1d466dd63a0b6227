/// A block of addresses that is not a plain globally routable destination, with why.
///
/// The tables follow the IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890) plus the
/// cloud metadata endpoints an SSRF reaches for first.
public struct SpecialPurposeRange: Hashable, Sendable, CustomStringConvertible {
    /// What kind of range this is.
    public enum Kind: String, Hashable, Sendable {
        /// `0.0.0.0`, `::`: "this host", which Linux connects to itself.
        case unspecified
        /// `0.0.0.0/8`.
        case thisNetwork
        /// `127.0.0.0/8`, `::1`.
        case loopback
        /// RFC 1918 ranges.
        case privateNetwork
        /// CGNAT `100.64.0.0/10`.
        case sharedAddressSpace
        /// `169.254.0.0/16`, `fe80::/10`.
        case linkLocal
        /// Cloud instance metadata endpoints (`169.254.169.254`, `fd00:ec2::254`, Azure's `168.63.129.16`).
        case cloudMetadata
        /// IETF protocol assignments (`192.0.0.0/24`, `2001::/23`).
        case protocolAssignments
        /// Documentation ranges (`192.0.2.0/24`, `198.51.100.0/24`, `203.0.113.0/24`, `2001:db8::/32`, `3fff::/20`).
        case documentation
        /// Benchmarking `198.18.0.0/15`.
        case benchmarking
        /// `224.0.0.0/4`, `ff00::/8`.
        case multicast
        /// `255.255.255.255`.
        case broadcast
        /// Reserved or retired (`240.0.0.0/4`, the 6to4 relay anycast range).
        case reserved
        /// Unique-local `fc00::/7`.
        case uniqueLocal
        /// Deprecated site-local `fec0::/10`.
        case siteLocal
        /// Discard-only `100::/64`.
        case discardOnly
        /// Teredo `2001::/32`, refused outright.
        case teredo
        /// Local-use NAT64 `64:ff9b:1::/48`, refused outright.
        case localUseNAT64
        /// IPv6 outside global unicast `2000::/3`.
        case notGlobalUnicast
    }

    /// The block.
    public let cidr: CIDR
    /// Its kind.
    public let kind: Kind
    /// Where it is defined, e.g. `RFC 1918`.
    public let reference: String

    /// Creates a range; `cidr` must be valid text (the tables are literals).
    init(_ cidr: String, _ kind: Kind, _ reference: String) {
        guard let parsed = CIDR(cidr) else { preconditionFailure("bad CIDR literal \(cidr)") }
        self.cidr = parsed
        self.kind = kind
        self.reference = reference
    }

    /// `kind cidr (reference)`.
    public var description: String { "\(kind.rawValue) \(cidr) (\(reference))" }

    /// IPv4 ranges, most specific first (the first match names the reason).
    static let ipv4: [SpecialPurposeRange] = [
        .init("0.0.0.0/32", .unspecified, "RFC 1122 §3.2.1.3"),
        .init("0.0.0.0/8", .thisNetwork, "RFC 791"),
        .init("10.0.0.0/8", .privateNetwork, "RFC 1918"),
        .init("100.64.0.0/10", .sharedAddressSpace, "RFC 6598"),
        .init("127.0.0.0/8", .loopback, "RFC 1122 §3.2.1.3"),
        .init("169.254.169.254/32", .cloudMetadata, "instance metadata service"),
        .init("169.254.0.0/16", .linkLocal, "RFC 3927"),
        .init("172.16.0.0/12", .privateNetwork, "RFC 1918"),
        .init("192.0.0.0/24", .protocolAssignments, "RFC 6890"),
        .init("192.0.2.0/24", .documentation, "RFC 5737"),
        .init("192.88.99.0/24", .reserved, "RFC 7526 (6to4 relay anycast)"),
        .init("192.168.0.0/16", .privateNetwork, "RFC 1918"),
        .init("198.18.0.0/15", .benchmarking, "RFC 2544"),
        .init("198.51.100.0/24", .documentation, "RFC 5737"),
        .init("203.0.113.0/24", .documentation, "RFC 5737"),
        .init("168.63.129.16/32", .cloudMetadata, "Azure platform endpoint"),
        .init("224.0.0.0/4", .multicast, "RFC 5771"),
        .init("255.255.255.255/32", .broadcast, "RFC 919"),
        .init("240.0.0.0/4", .reserved, "RFC 1112 §4"),
    ]

    /// IPv6 ranges checked after the embedded-IPv4 forms, most specific first.
    static let ipv6: [SpecialPurposeRange] = [
        .init("::/128", .unspecified, "RFC 4291 §2.5.2"),
        .init("::1/128", .loopback, "RFC 4291 §2.5.3"),
        .init("64:ff9b:1::/48", .localUseNAT64, "RFC 8215"),
        .init("100::/64", .discardOnly, "RFC 6666"),
        .init("2001:db8::/32", .documentation, "RFC 3849"),
        .init("3fff::/20", .documentation, "RFC 9637"),
        .init("2001::/32", .teredo, "RFC 4380"),
        .init("2001::/23", .protocolAssignments, "RFC 2928"),
        .init("fd00:ec2::254/128", .cloudMetadata, "instance metadata service"),
        .init("fc00::/7", .uniqueLocal, "RFC 4193"),
        .init("fe80::/10", .linkLocal, "RFC 4291 §2.5.6"),
        .init("fec0::/10", .siteLocal, "RFC 3879"),
        .init("ff00::/8", .multicast, "RFC 4291 §2.7"),
    ]

    /// Global unicast space (RFC 4291 §2.4, IANA IPv6 Address Space): everything outside it is refused.
    static let globalUnicast = CIDR("2000::/3")!

    /// The reason given for IPv6 outside `globalUnicast`.
    static let outsideGlobalUnicast = SpecialPurposeRange("::/0", .notGlobalUnicast, "outside 2000::/3, RFC 4291 §2.4")
}
