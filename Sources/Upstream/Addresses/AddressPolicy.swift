/// Decides which addresses Larder may connect to (the SSRF guard); pure and table-tested.
///
/// Order: a configured allow-network wins; IPv6 forms that embed IPv4 (mapped, compatible, translated,
/// NAT64 `64:ff9b::/96`, 6to4) take the verdict of the embedded address; then the special-purpose
/// tables; IPv6 outside global unicast `2000::/3` is refused. Teredo (`2001::/32`) is refused outright:
/// its client address is obfuscated and only meaningful through a relay, and no real origin needs it.
/// The local-use NAT64 prefix `64:ff9b:1::/48` (RFC 8215) is refused outright too, since its IPv4
/// placement depends on the operator's prefix length; open it with an allow-network if needed.
public struct AddressPolicy: Hashable, Sendable {
    /// Ranges opened on purpose (tests, local origins), checked before every refusal.
    public var allowNetworks: [CIDR]

    /// Creates a policy.
    /// - Parameter allowNetworks: ranges to allow even when they are special-purpose.
    public init(allowNetworks: [CIDR] = []) {
        self.allowNetworks = allowNetworks
    }

    /// Judges one address.
    /// - Parameter address: the address about to be connected to.
    /// - Returns: the verdict with its reason.
    public func verdict(for address: IPAddress) -> AddressVerdict {
        if let network = allowNetworks.first(where: { $0.contains(address) }) {
            return .allowed(.allowNetwork(network))
        }
        switch address {
        case .v4:
            if let range = SpecialPurposeRange.ipv4.first(where: { $0.cidr.contains(address) }) {
                return .refused(.specialPurpose(range))
            }
            return .allowed(.globallyRoutable)
        case .v6(let v6):
            if let (form, embedded) = Self.embeddedIPv4(in: v6) {
                switch verdict(for: .v4(embedded)) {
                case .allowed(let reason): return .allowed(reason)
                case .refused(let inner): return .refused(.embedded(form, embedded, inner))
                }
            }
            if let range = SpecialPurposeRange.ipv6.first(where: { $0.cidr.contains(address) }) {
                return .refused(.specialPurpose(range))
            }
            if !SpecialPurposeRange.globalUnicast.contains(address) {
                return .refused(.specialPurpose(SpecialPurposeRange.outsideGlobalUnicast))
            }
            return .allowed(.globallyRoutable)
        }
    }

    /// The IPv4 address an IPv6 address carries, and in which form, if it is one of the embedding forms.
    /// `::` and `::1` are not treated as IPv4-compatible.
    static func embeddedIPv4(in address: IPv6Address) -> (IPv6Embedding, IPv4Address)? {
        let upper32OfLow = address.low >> 32
        if address.high == 0 {
            if upper32OfLow == 0xffff { return (.ipv4Mapped, address.lowIPv4) }
            if upper32OfLow == 0 && address.low > 1 { return (.ipv4Compatible, address.lowIPv4) }
            if upper32OfLow == 0xffff_0000 { return (.ipv4Translated, address.lowIPv4) }
        }
        if address.high == 0x0064_ff9b_0000_0000 && upper32OfLow == 0 { return (.nat64, address.lowIPv4) }
        if address.high >> 48 == 0x2002 {
            return (.sixToFour, IPv4Address(UInt32(truncatingIfNeeded: address.high >> 16)))
        }
        return nil
    }
}
