import CCurl
import Glibc

// The C callbacks libcurl calls on the driver thread (inside curl_multi_perform). Each receives the
// unretained `CurlTransfer` as its user data; the driver keeps the transfer alive while it is attached.

/// What a data callback (CURLOPT_WRITEFUNCTION, CURLOPT_HEADERFUNCTION) does, whoever receives the data: the
/// `size * count` bytes at `buffer` go to the unretained receiver in `userData`, and its answer goes back to
/// libcurl (0, which stops the transfer, without one). A C callback cannot be generic, so each receiver
/// type keeps its own pair of callbacks, each a call of this.
/// - Parameters:
///   - buffer: the bytes.
///   - size: libcurl's item size (1).
///   - count: libcurl's item count.
///   - userData: the receiver, passed unretained (`Unmanaged.passUnretained`).
///   - receive: hands the bytes to the receiver and returns what libcurl must be told.
/// - Returns: what `receive` returned.
@inline(__always)
func deliverCurlData<Receiver: AnyObject>(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userData: UnsafeMutableRawPointer?,
    to receive: (Receiver, UnsafeRawBufferPointer) -> Int
) -> Int {
    guard let userData else { return 0 }
    let receiver = Unmanaged<Receiver>.fromOpaque(userData).takeUnretainedValue()
    return receive(receiver, UnsafeRawBufferPointer(start: buffer, count: size * count))
}

/// CURLOPT_WRITEFUNCTION (https://curl.se/libcurl/c/CURLOPT_WRITEFUNCTION.html).
func curlWriteCallback(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userData: UnsafeMutableRawPointer?
) -> Int {
    deliverCurlData(buffer, size, count, userData) { (transfer: CurlTransfer, bytes) in transfer.receiveBody(bytes) }
}

/// CURLOPT_HEADERFUNCTION (https://curl.se/libcurl/c/CURLOPT_HEADERFUNCTION.html).
func curlHeaderCallback(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userData: UnsafeMutableRawPointer?
) -> Int {
    deliverCurlData(buffer, size, count, userData) { (transfer: CurlTransfer, line) in
        transfer.receiveHeaderLine(line)
    }
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
