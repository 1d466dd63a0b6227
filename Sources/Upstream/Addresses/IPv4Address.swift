/// An IPv4 address as a 32-bit value in network order of significance (first octet highest).
///
/// Parsing accepts only the strict dotted-quad form of RFC 791 text: four decimal octets without
/// leading zeros. The other spellings C's `inet_aton` accepts (`127.1`, `0x7f.1`, `0177.0.0.1`,
/// `2130706433`) are refused here on purpose; where they matter (a URL's host), libcurl resolves
/// them and the address policy judges the address actually connected to.
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
        var octets: [UInt32] = []
        octets.reserveCapacity(4)
        for part in text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false) {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            if part.count > 1 && part.first == UInt8(ascii: "0") { return nil }
            let octet = part.reduce(UInt32(0)) { $0 * 10 + UInt32($1 - 0x30) }
            guard octet <= 255 else { return nil }
            octets.append(octet)
        }
        guard octets.count == 4 else { return nil }
        value = octets[0] << 24 | octets[1] << 16 | octets[2] << 8 | octets[3]
    }

    /// The four octets, first to last.
    public var octets: [UInt8] {
        [
            UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8),
            UInt8(truncatingIfNeeded: value),
        ]
    }

    /// Dotted-quad text.
    public var description: String { octets.map(String.init).joined(separator: ".") }

    /// Orders by numeric value.
    public static func < (lhs: IPv4Address, rhs: IPv4Address) -> Bool { lhs.value < rhs.value }
}
