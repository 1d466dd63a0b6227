/// The address policy's decision about one address, with its reason (shown by `/filters/explain`).
public enum AddressVerdict: Hashable, Sendable, CustomStringConvertible {
    /// The address may be connected to.
    case allowed(AllowReason)
    /// The address must not be connected to.
    case refused(AddressRefusal)

    /// Why an address is allowed.
    public enum AllowReason: Hashable, Sendable, CustomStringConvertible {
        /// Not in any special-purpose range.
        case globallyRoutable
        /// Inside a configured allow-network, which is checked before anything else.
        case allowNetwork(CIDR)

        /// Human-readable reason.
        public var description: String {
            switch self {
            case .globallyRoutable: "globally routable"
            case .allowNetwork(let cidr): "inside allowed network \(cidr)"
            }
        }
    }

    /// Whether the verdict allows the connection.
    public var isAllowed: Bool {
        if case .allowed = self { return true }
        return false
    }

    /// `allowed: …` or `refused: …`.
    public var description: String {
        switch self {
        case .allowed(let reason): "allowed: \(reason)"
        case .refused(let refusal): "refused: \(refusal)"
        }
    }
}

/// Why an address is refused.
public indirect enum AddressRefusal: Hashable, Sendable, CustomStringConvertible {
    /// The address lies in a special-purpose range.
    case specialPurpose(SpecialPurposeRange)
    /// The address embeds an IPv4 address (mapped, NAT64, 6to4, …) that is itself refused.
    case embedded(IPv6Embedding, IPv4Address, AddressRefusal)
    /// The address and port are one of Larder's own listeners (loop guard).
    case ownAddress(String)
    /// The socket family is neither IPv4 nor IPv6.
    case unsupportedFamily(Int32)

    /// The kind of the innermost special-purpose range, when there is one.
    public var kind: SpecialPurposeRange.Kind? {
        switch self {
        case .specialPurpose(let range): range.kind
        case .embedded(_, _, let inner): inner.kind
        case .ownAddress, .unsupportedFamily: nil
        }
    }

    /// Human-readable reason, e.g. `IPv4-mapped 127.0.0.1: loopback 127.0.0.0/8 (RFC 1122 §3.2.1.3)`.
    public var description: String {
        switch self {
        case .specialPurpose(let range): range.description
        case .embedded(let form, let v4, let inner): "\(form.rawValue) \(v4): \(inner)"
        case .ownAddress(let endpoint): "Larder's own listening address \(endpoint)"
        case .unsupportedFamily(let family): "unsupported address family \(family)"
        }
    }
}

/// The IPv6 forms that carry an IPv4 address, whose verdict they take.
public enum IPv6Embedding: String, Hashable, Sendable {
    /// `::ffff:0:0/96` (RFC 4291 §2.5.5.2).
    case ipv4Mapped = "IPv4-mapped"
    /// `::/96`, deprecated (RFC 4291 §2.5.5.1).
    case ipv4Compatible = "IPv4-compatible"
    /// `::ffff:0:0:0/96` (RFC 2765 §2.1).
    case ipv4Translated = "IPv4-translated"
    /// `64:ff9b::/96` (RFC 6052 §2.1).
    case nat64 = "NAT64"
    /// `2002::/16` (RFC 3056 §2).
    case sixToFour = "6to4"
}
