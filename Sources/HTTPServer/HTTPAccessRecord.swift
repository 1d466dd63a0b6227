public import HTTPCore

/// The facts of one answered request, for an access log line.
public struct HTTPAccessRecord: Sendable {
    /// The request method.
    public var method: HTTPMethod
    /// The request target as received (may hold any byte the parser accepted; escape before printing).
    public var target: String
    /// The response status code.
    public var status: Int
    /// Content bytes written (0 for HEAD and for bodies cut short).
    public var bytesSent: Int
    /// From the request being complete to the last byte written, in nanoseconds.
    public var durationNanoseconds: UInt64
    /// The response's `X-Cache` value, when it had one.
    public var cacheStatus: String?
    /// The client's address.
    public var remoteAddress: HTTPAddress
    /// Whether the response was cut short (the client vanished, the body source failed).
    public var aborted: Bool
}
