import Glibc

extension AddressPolicy {
    /// Resolves a host the way the system resolver would (DNS included) and judges every address (for
    /// `/filters/explain`; fetches judge the address libcurl actually connects to instead).
    ///
    /// Blocking (`getaddrinfo`, https://man7.org/linux/man-pages/man3/getaddrinfo.3.html): call it off
    /// any connection queue. Numeric spellings such as `2130706433` resolve as the C library reads them.
    /// - Parameter host: a host name or address literal (IPv6 with or without brackets).
    /// - Returns: each distinct address with its verdict, in resolver order; empty when nothing resolves.
    public func verdicts(resolving host: String) -> [(address: IPAddress, verdict: AddressVerdict)] {
        var name = Substring(host)
        if name.first == "[" && name.last == "]" { name = name.dropFirst().dropLast() }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(String(name), nil, &hints, &list) == 0 else { return [] }
        defer { freeaddrinfo(list) }
        var seen: [IPAddress] = []
        var node = list
        while let info = node {
            node = info.pointee.ai_next
            guard let raw = info.pointee.ai_addr else { continue }
            let address: IPAddress
            switch info.pointee.ai_family {
            case AF_INET:
                let sin = UnsafeRawPointer(raw).loadUnaligned(as: sockaddr_in.self)
                address = .v4(IPv4Address(UInt32(bigEndian: sin.sin_addr.s_addr)))
            case AF_INET6:
                let sin6 = UnsafeRawPointer(raw).loadUnaligned(as: sockaddr_in6.self)
                address = .v6(IPv6Address(bytes: withUnsafeBytes(of: sin6.sin6_addr) { Array($0) }))
            default:
                continue
            }
            if !seen.contains(address) { seen.append(address) }
        }
        return seen.map { ($0, verdict(for: $0)) }
    }
}
