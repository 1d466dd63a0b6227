import Glibc

/// An IPv4 or IPv6 socket address in a `sockaddr_storage`, as the socket calls take and give it.
struct SocketAddress {
    private var storage = sockaddr_storage()

    /// The address family (`AF_INET` or `AF_INET6`).
    var family: sa_family_t { storage.ss_family }

    /// An empty address, for a socket call to fill (`getsockname`, `getpeername`).
    init() {}

    /// An address holding a `sockaddr_in` or `sockaddr_in6` at the start of its storage.
    private init<Address>(holding address: Address) {
        withUnsafeMutableBytes(of: &storage) { raw in raw.storeBytes(of: address, as: Address.self) }
    }

    /// Parses a numeric IPv4 or IPv6 host (`localhost` is taken as 127.0.0.1) and a port.
    static func parse(host: String, port: Int) throws(SocketError) -> SocketAddress {
        guard (0...65_535).contains(port) else { throw SocketError(operation: "port \(port)", errno: EINVAL) }
        let numericHost = host == "localhost" ? "127.0.0.1" : host
        var ipv4 = sockaddr_in()
        if inet_pton(AF_INET, numericHost, &ipv4.sin_addr) == 1 {
            ipv4.sin_family = sa_family_t(AF_INET)
            ipv4.sin_port = in_port_t(UInt16(port).bigEndian)
            return SocketAddress(holding: ipv4)
        }
        let bare =
            numericHost.hasPrefix("[") && numericHost.hasSuffix("]")
            ? String(numericHost.dropFirst().dropLast()) : numericHost
        var ipv6 = sockaddr_in6()
        if inet_pton(AF_INET6, bare, &ipv6.sin6_addr) == 1 {
            ipv6.sin6_family = sa_family_t(AF_INET6)
            ipv6.sin6_port = in_port_t(UInt16(port).bigEndian)
            return SocketAddress(holding: ipv6)
        }
        throw SocketError(operation: "parse address \(host)", errno: EINVAL)
    }

    /// The length of the address for the socket calls.
    private var length: socklen_t {
        socklen_t(family == sa_family_t(AF_INET6) ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
    }

    func withSockaddr<T, E: Error>(
        _ body: (UnsafePointer<sockaddr>, socklen_t) throws(E) -> T
    ) throws(E) -> T {
        var copy = storage
        let length = self.length
        return try withUnsafePointer(to: &copy) { pointer throws(E) -> T in
            try body(UnsafeRawPointer(pointer).assumingMemoryBound(to: sockaddr.self), length)
        }
    }

    mutating func withMutableSockaddr<T>(_ body: (UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> T)
        -> T
    {
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        return withUnsafeMutablePointer(to: &storage) { pointer in
            UnsafeMutableRawPointer(pointer).withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, &length) }
        }
    }

    /// The port in host byte order.
    var port: Int {
        withUnsafeBytes(of: storage) { raw in
            if family == sa_family_t(AF_INET6) {
                return Int(UInt16(bigEndian: raw.load(as: sockaddr_in6.self).sin6_port))
            }
            return Int(UInt16(bigEndian: raw.load(as: sockaddr_in.self).sin_port))
        }
    }

    /// The public form: numeric text, port and whether the address is loopback.
    var endpoint: HTTPAddress {
        withUnsafeBytes(of: storage) { raw in
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
            if family == sa_family_t(AF_INET6) {
                var address = raw.load(as: sockaddr_in6.self).sin6_addr
                inet_ntop(AF_INET6, &address, &text, socklen_t(text.count))
                let bytes = withUnsafeBytes(of: address) { Array($0) }
                let isV6Loopback = bytes[0..<15].allSatisfy { $0 == 0 } && bytes[15] == 1
                // ::ffff:127.x.y.z is IPv4 loopback seen through a dual-stack socket.
                let isMappedLoopback =
                    bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
                    && bytes[12] == 127
                return HTTPAddress(
                    ip: String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self),
                    port: port, isLoopback: isV6Loopback || isMappedLoopback)
            }
            var address = raw.load(as: sockaddr_in.self).sin_addr
            inet_ntop(AF_INET, &address, &text, socklen_t(text.count))
            let firstOctet = UInt8(truncatingIfNeeded: UInt32(bigEndian: address.s_addr) >> 24)
            return HTTPAddress(
                ip: String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), port: port,
                isLoopback: firstOctet == 127)
        }
    }
}
