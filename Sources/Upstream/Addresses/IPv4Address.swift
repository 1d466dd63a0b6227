import HTTPCore

/// An IPv4 address as a 32-bit value in network order of significance (first octet highest).
///
/// Parsing accepts only the strict dotted-quad form of RFC 791 text: four decimal octets without
/// leading zeros (`IPv4HostSpelling.dottedDecimal`). The other spellings C's `inet_aton` accepts
/// (`127.1`, `0x7f.1`, `0177.0.0.1`, `2130706433`) are refused here on purpose; a URL's host in one of
/// them is rewritten to dotted decimal (or refused) before any connection (`OriginURL`), and the
/// address policy judges the address actually connected to.
public struct IPv4Address: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The address, first octet in the highest byte.
    public let value: UInt32

    /// Creates an address from its 32-bit value.
    public init(_ value: UInt32) { self.value = value }

    /// Creates an address from its four octets.
    public init(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) {
        value = UInt32(a) << 24 | UInt32(b) << 16 | UInt32(c) << 8 | UInt32(d)
    }

    /// Parses strict dotted-quad text, or returns `nil`.
    /// - Parameter text: for example `192.0.2.1`.
    public init?(_ text: some StringProtocol) {
        guard let value = IPv4HostSpelling.dottedDecimal(Substring(text)) else { return nil }
        self.value = value
    }

    /// The four octets, first to last.
    public var octets: [UInt8] {
        [
            UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8),
            UInt8(truncatingIfNeeded: value),
        ]
    }

    /// Dotted-quad text.
    public var description: String { IPv4HostSpelling.dotted(value) }

    /// Orders by numeric value.
    public static func < (lhs: IPv4Address, rhs: IPv4Address) -> Bool { lhs.value < rhs.value }
}
