/// An address and port, e.g. one of Larder's own listeners (for the loop guard).
public struct IPEndpoint: Hashable, Sendable, CustomStringConvertible {
    /// The address; an unspecified address (`0.0.0.0`, `::`) matches every address on `port`.
    public let address: IPAddress
    /// The TCP port.
    public let port: UInt16

    /// Creates an endpoint.
    public init(address: IPAddress, port: UInt16) {
        self.address = address
        self.port = port
    }

    /// Parses `a.b.c.d:port` or `[v6]:port`, or returns `nil`.
    /// - Parameter text: for example `127.0.0.1:8080` or `[::1]:8080`.
    public init?(_ text: some StringProtocol) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]),
            let address = IPAddress(text[..<colon]), port > 0
        else { return nil }
        if case .v6 = address, text.first != "[" { return nil }
        self.init(address: address, port: port)
    }

    /// Whether a connection to `other:otherPort` would reach this endpoint. A wildcard endpoint matches
    /// any address of its family on its port, and IPv4-mapped IPv6 matches the IPv4 endpoint.
    func matches(_ other: IPAddress, port otherPort: UInt16) -> Bool {
        guard otherPort == port else { return false }
        var candidate = other
        if case .v6(let v6) = other, v6.high == 0, v6.low >> 32 == 0xffff { candidate = .v4(v6.lowIPv4) }
        switch (address, candidate) {
        case (.v4(let mine), .v4): return mine.value == 0 || address == candidate
        case (.v6(let mine), .v6): return (mine.high == 0 && mine.low == 0) || address == candidate
        default: return false
        }
    }

    /// `address:port`, IPv6 in brackets.
    public var description: String {
        switch address {
        case .v4: "\(address):\(port)"
        case .v6: "[\(address)]:\(port)"
        }
    }
}
