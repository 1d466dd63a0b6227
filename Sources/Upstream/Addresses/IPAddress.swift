/// An IPv4 or an IPv6 address.
public enum IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// An IPv4 address.
    case v4(IPv4Address)
    /// An IPv6 address.
    case v6(IPv6Address)

    /// Parses strict dotted-quad IPv4 or RFC 4291 IPv6 text (brackets allowed around IPv6), or returns `nil`.
    /// - Parameter text: for example `10.0.0.1`, `::1` or `[fe80::1]`.
    public init?(_ text: some StringProtocol) {
        if let v4 = IPv4Address(text) {
            self = .v4(v4)
            return
        }
        var inner = Substring(text)
        if inner.first == "[" && inner.last == "]" { inner = inner.dropFirst().dropLast() }
        guard let v6 = IPv6Address(inner) else { return nil }
        self = .v6(v6)
    }

    /// The number of bits in an address of this family (32 or 128).
    public var bitWidth: Int {
        switch self {
        case .v4: 32
        case .v6: 128
        }
    }

    /// The address as text: dotted quad, or the RFC 5952 form of IPv6.
    public var description: String {
        switch self {
        case .v4(let address): address.description
        case .v6(let address): address.description
        }
    }
}
