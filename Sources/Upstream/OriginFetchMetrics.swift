/// Facts about a finished fetch.
public struct OriginFetchMetrics: Sendable, Equatable {
    /// The final status code.
    public var status: Int
    /// Body bytes received (as sent, before any decoding).
    public var bodyBytes: Int
    /// Bytes of response heads received.
    public var headerBytes: Int
    /// Whether the fetch used a connection opened by an earlier fetch.
    public var reusedConnection: Bool
    /// The address connected to, as text.
    public var remoteAddress: String
    /// The port connected to.
    public var remotePort: Int
    /// Time from start to connected.
    public var connectTime: Duration
    /// Time from start to the last byte.
    public var totalTime: Duration

    /// Creates metrics.
    public init(
        status: Int, bodyBytes: Int, headerBytes: Int, reusedConnection: Bool, remoteAddress: String,
        remotePort: Int, connectTime: Duration, totalTime: Duration
    ) {
        self.status = status
        self.bodyBytes = bodyBytes
        self.headerBytes = headerBytes
        self.reusedConnection = reusedConnection
        self.remoteAddress = remoteAddress
        self.remotePort = remotePort
        self.connectTime = connectTime
        self.totalTime = totalTime
    }
}
