import Glibc

/// A failed socket system call, with the call's name and the `errno` it left.
public struct SocketError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The system call or step that failed (`bind`, `listen`, `accept`, ...).
    public var operation: String
    /// The `errno` value the call left.
    public var errno: Int32

    /// Creates an error for a failed call.
    /// - Parameters:
    ///   - operation: the call or step that failed.
    ///   - errno: the error number it reported.
    public init(operation: String, errno: Int32) {
        self.operation = operation
        self.errno = errno
    }

    /// The call, the system's message for the errno, and the number.
    public var description: String {
        "\(operation) failed: \(String(cString: strerror(errno))) (errno \(errno))"
    }
}
