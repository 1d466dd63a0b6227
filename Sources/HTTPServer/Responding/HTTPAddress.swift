/// One end of a TCP connection as handlers see it.
public struct HTTPAddress: Sendable, Hashable, CustomStringConvertible {
    /// The numeric IP address (`127.0.0.1`, `::1`).
    public var ip: String
    /// The TCP port.
    public var port: Int
    /// Whether the address is a loopback address (127.0.0.0/8, `::1`, or IPv4 loopback mapped into IPv6).
    public var isLoopback: Bool

    /// Creates an address.
    /// - Parameters:
    ///   - ip: the numeric IP address.
    ///   - port: the TCP port.
    ///   - isLoopback: whether the address is a loopback address.
    public init(ip: String, port: Int, isLoopback: Bool) {
        self.ip = ip
        self.port = port
        self.isLoopback = isLoopback
    }

    /// `ip:port`, with brackets around IPv6 addresses.
    public var description: String { ip.contains(":") ? "[\(ip)]:\(port)" : "\(ip):\(port)" }
}
