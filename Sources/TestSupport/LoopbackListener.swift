import Foundation

/// A listening TCP socket on `127.0.0.1` at a free port, for the stub servers tests talk to.
/// - Parameter backlog: the accept queue's length (`listen(2)`).
/// - Returns: the socket and its port.
/// - Throws: `StubOriginError` naming the socket call that failed.
public func loopbackListener(backlog: Int32) throws -> (fd: Int32, port: UInt16) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw StubOriginError(operation: "socket", errno: errno) }
    var one: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ok = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && listen(fd, backlog) == 0 && getsockname(fd, $0, &length) == 0
        }
    }
    guard ok else {
        let error = StubOriginError(operation: "bind/listen", errno: errno)
        close(fd)
        throw error
    }
    return (fd, UInt16(bigEndian: address.sin_port))
}

/// The loopback address of a listener's port, for a client socket to connect to.
func loopbackAddress(port: UInt16) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    address.sin_port = port.bigEndian
    return address
}
