public import HTTPCore

/// Everything that tunes the server: where it listens, its limits and its timeouts.
///
/// Durations are in seconds (fractions allowed, so tests can inject short values).
public struct HTTPServerConfiguration: Sendable, Equatable {
    /// The numeric address to listen on (`0.0.0.0`, `127.0.0.1`, `::`).
    public var host: String
    /// The TCP port; 0 picks a free one, which `HTTPServer.port` then reports.
    public var port: Int
    /// The listen queue length passed to `listen(2)`.
    public var backlog: Int
    /// From the first byte of a request until its head is complete, and then the longest pause allowed
    /// while its body arrives; beyond it the client gets 408 and the connection closes. The head's clock
    /// is not reset by each byte, so a slow drip (slowloris) cannot hold a connection.
    public var headerReadTimeout: Double
    /// How long a keep-alive connection may wait for the first byte of its next request; then it is
    /// closed without a response.
    public var idleTimeout: Double
    /// How long a response write may make no progress (the client does not read) before the connection
    /// is aborted.
    public var writeTimeout: Double
    /// The most connections served at once; beyond it a new connection gets 503 and is closed.
    public var maxConnections: Int
    /// Request line, header and body limits enforced by the parser (414, 431, 413).
    public var parserLimits: HTTPParserLimits
    /// The most requests parsed ahead while an earlier one is being answered (pipelining); beyond it
    /// the server stops reading until it catches up.
    public var maxPipelinedRequests: Int
    /// How many serial root queues the connections are spread over; 0 uses one per CPU the process may
    /// run on.
    public var eventLoops: Int

    /// Creates a configuration; the defaults suit a service behind a load balancer.
    public init(
        host: String = "0.0.0.0",
        port: Int = 8080,
        backlog: Int = 511,
        headerReadTimeout: Double = 10,
        idleTimeout: Double = 60,
        writeTimeout: Double = 30,
        maxConnections: Int = 10_000,
        parserLimits: HTTPParserLimits = HTTPParserLimits(),
        maxPipelinedRequests: Int = 16,
        eventLoops: Int = 0
    ) {
        self.host = host
        self.port = port
        self.backlog = backlog
        self.headerReadTimeout = headerReadTimeout
        self.idleTimeout = idleTimeout
        self.writeTimeout = writeTimeout
        self.maxConnections = maxConnections
        self.parserLimits = parserLimits
        self.maxPipelinedRequests = maxPipelinedRequests
        self.eventLoops = eventLoops
    }
}
