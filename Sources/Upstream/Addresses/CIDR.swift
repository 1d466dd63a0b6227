/// A block of addresses written as `address/prefix-length` (RFC 4632 §3.1, RFC 4291 §2.3).
///
/// Bits past the prefix are cleared on creation, so `127.0.0.1/8` and `127.0.0.0/8` are the same block.
/// An IPv4 block contains only IPv4 addresses; the address policy unwraps IPv4 embedded in IPv6 itself.
public struct CIDR: Hashable, Sendable, CustomStringConvertible {
    /// The first address of the block.
    public let address: IPAddress
    /// How many leading bits are fixed: 0–32 for IPv4, 0–128 for IPv6.
    public let prefixLength: Int

    /// Creates a block, clearing the host bits of `address`.
    /// - Parameters:
    ///   - address: any address in the block.
    ///   - prefixLength: the number of fixed leading bits; must fit the address family.
    public init(_ address: IPAddress, prefixLength: Int) {
        precondition((0...address.bitWidth).contains(prefixLength), "prefix length out of range")
        self.prefixLength = prefixLength
        self.address = Self.masked(address, prefixLength: prefixLength)
    }

    /// Parses `address/length`, or a bare address as a block of one, or returns `nil`.
    /// - Parameter text: for example `10.0.0.0/8`, `fc00::/7` or `192.0.2.1`.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(parts[0]) else { return nil }
        var length = address.bitWidth
        if parts.count == 2 {
            let digits = parts[1]
            guard !digits.isEmpty, digits.utf8.count <= 3, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                let parsed = Int(digits), parsed <= address.bitWidth
            else { return nil }
            length = parsed
        }
        self.init(address, prefixLength: length)
    }

    /// Whether the address lies in this block (same family, same leading bits).
    public func contains(_ other: IPAddress) -> Bool {
        switch (address, other) {
        case (.v4, .v4), (.v6, .v6): Self.masked(other, prefixLength: prefixLength) == address
        default: false
        }
    }

    /// `address/length` text.
    public var description: String { "\(address)/\(prefixLength)" }

    private static func masked(_ address: IPAddress, prefixLength: Int) -> IPAddress {
        switch address {
        case .v4(let v4):
            let mask: UInt32 = prefixLength == 0 ? 0 : ~UInt32(0) << UInt32(32 - prefixLength)
            return .v4(IPv4Address(v4.value & mask))
        case .v6(let v6):
            let highMask: UInt64 =
                prefixLength == 0 ? 0 : prefixLength >= 64 ? ~0 : ~UInt64(0) << UInt64(64 - prefixLength)
            let lowMask: UInt64 = prefixLength <= 64 ? 0 : ~UInt64(0) << UInt64(128 - prefixLength)
            return .v6(IPv6Address(high: v6.high & highMask, low: v6.low & lowMask))
        }
    }
}
