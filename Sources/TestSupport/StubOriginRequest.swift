public import HTTPCore

/// One request as a `StubOrigin` received it: its head, and its content when it had a `Content-Length`.
public struct StubOriginRequest: Sendable {
    /// The method token, e.g. `GET`.
    public var method: String
    /// The request target as sent, e.g. `/a?b=c`.
    public var target: String
    /// The target without its query.
    public var path: String
    /// The version token, e.g. `HTTP/1.1`.
    public var version: String
    /// The header fields in order.
    public var headers: HTTPHeaders
    /// The content (`Content-Length` framing; empty without one).
    public var body: [UInt8] = []
    /// Which accepted connection carried it (1 for the first connection).
    public var connection: Int
    /// Its position among all requests the stub received (1 for the first).
    public var sequence: Int
}
