import CCurl
import Glibc

// The C callbacks libcurl calls on the driver thread (inside curl_multi_perform). Each receives the
// unretained `CurlTransfer` as its user data; the driver keeps the transfer alive while it is attached.

/// CURLOPT_WRITEFUNCTION (https://curl.se/libcurl/c/CURLOPT_WRITEFUNCTION.html).
func curlWriteCallback(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userData: UnsafeMutableRawPointer?
) -> Int {
    guard let userData else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userData).takeUnretainedValue()
    return transfer.receiveBody(UnsafeRawBufferPointer(start: buffer, count: size * count))
}

/// CURLOPT_HEADERFUNCTION (https://curl.se/libcurl/c/CURLOPT_HEADERFUNCTION.html).
func curlHeaderCallback(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userData: UnsafeMutableRawPointer?
) -> Int {
    guard let userData else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userData).takeUnretainedValue()
    return transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: buffer, count: size * count))
}

/// CURLOPT_OPENSOCKETFUNCTION (https://curl.se/libcurl/c/CURLOPT_OPENSOCKETFUNCTION.html): the address
/// policy's hook on the address actually about to be connected to.
func curlOpenSocketCallback(
    _ userData: UnsafeMutableRawPointer?, _ purpose: curlsocktype, _ address: UnsafeMutablePointer<curl_sockaddr>?
) -> curl_socket_t {
    guard let userData, let address else { return ccurl_socket_bad() }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userData).takeUnretainedValue()
    let (ip, port) = decodeSocketAddress(address)
    return transfer.openSocket(
        family: address.pointee.family, socketType: address.pointee.socktype,
        protocolNumber: address.pointee.protocol, address: ip, port: port)
}

/// The IP address and port in a `curl_sockaddr`, whose `addr` member is really as long as `addrlen`.
private func decodeSocketAddress(_ address: UnsafeMutablePointer<curl_sockaddr>) -> (IPAddress?, UInt16) {
    guard let offset = MemoryLayout<curl_sockaddr>.offset(of: \curl_sockaddr.addr) else { return (nil, 0) }
    let raw = UnsafeRawPointer(address) + offset
    let length = Int(address.pointee.addrlen)
    switch address.pointee.family {
    case AF_INET where length >= MemoryLayout<sockaddr_in>.size:
        let sin = raw.loadUnaligned(as: sockaddr_in.self)
        return (.v4(IPv4Address(UInt32(bigEndian: sin.sin_addr.s_addr))), UInt16(bigEndian: sin.sin_port))
    case AF_INET6 where length >= MemoryLayout<sockaddr_in6>.size:
        let sin6 = raw.loadUnaligned(as: sockaddr_in6.self)
        let bytes = withUnsafeBytes(of: sin6.sin6_addr) { Array($0) }
        return (.v6(IPv6Address(bytes: bytes)), UInt16(bigEndian: sin6.sin6_port))
    default:
        return (nil, 0)
    }
}
