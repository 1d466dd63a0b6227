public import HTTPCore

/// A replica's final response to a `ReplicaClient` request.
public struct ReplicaResponse: Sendable {
    /// The status code.
    public let status: Int
    /// The header fields in order.
    public let headers: HTTPHeaders
    /// The body (de-chunked, as sent: no content decoding).
    public let body: [UInt8]
}
