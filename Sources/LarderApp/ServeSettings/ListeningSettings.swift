import HTTPCore
public import HTTPServer

/// Where `serve` listens, its limits on requests and connections, and how long it drains.
public struct ListeningSettings: SettingGroup {
    /// How help and the README title this group.
    public static let title = "Listening and HTTP limits"

    @Setting("host", default: "0.0.0.0", .text("address"), help: "Address to listen on.")
    public var host: String
    @Setting("port", default: "8080", .integer(in: 0...65_535), help: "TCP port to listen on; 0 picks a free one.")
    public var port: Int
    @Setting(
        "header-timeout", default: "10", .seconds,
        help: "Seconds for a request head from its first byte, and for each pause in its body (408 beyond).")
    public var headerTimeout: Double
    @Setting(
        "idle-timeout", default: "60", .seconds, help: "Seconds a keep-alive connection may wait for its next request.")
    public var idleTimeout: Double
    @Setting(
        "write-timeout", default: "30", .seconds,
        help: "Seconds a response write may make no progress before the connection is dropped.")
    public var writeTimeout: Double
    @Setting(
        "max-connections", default: "10000", .integer(in: 1...1_000_000),
        help: "Connections served at once; beyond it new ones get 503.")
    public var maxConnections: Int
    @Setting("backlog", default: "511", .integer(in: 1...65_535), help: "Listen queue length.")
    public var backlog: Int
    @Setting(
        "max-request-line", default: "8192", .integer(in: 64...1_048_576),
        help: "Longest request line in bytes (414 beyond).")
    public var maxRequestLine: Int
    @Setting(
        "max-header-bytes", default: "32768", .integer(in: 256...16_777_216),
        help: "Largest request header section in bytes (431 beyond).")
    public var maxHeaderBytes: Int
    @Setting(
        "max-header-count", default: "100", .integer(in: 1...10_000), help: "Most request header fields (431 beyond).")
    public var maxHeaderCount: Int
    @Setting(
        "max-body-bytes", default: "1048576", .integer(in: 0...Int(Int32.max)),
        help: "Largest request body in bytes (413 beyond).")
    public var maxBodyBytes: Int
    @Setting(
        "max-pipelined", default: "16", .integer(in: 1...1024), help: "Requests parsed ahead of the one being answered."
    )
    public var maxPipelined: Int
    @Setting(
        "event-loops", default: "0", .integer(in: 0...256),
        help: "Serial queues connections are spread over; 0 is one per usable CPU.")
    public var eventLoops: Int
    @Setting(
        "scheduling", default: "batch", .choice("policy"),
        help:
            "How the kernel schedules the server's threads: batch (SCHED_BATCH: a thread handed work waits for the "
            + "running one instead of preempting it, so hand-offs are taken in batches; the origin client's thread "
            + "keeps the default) or normal (SCHED_OTHER for all).")
    public var scheduling: ThreadScheduling.Policy
    @Setting(
        "shutdown-grace", default: "10", .seconds,
        help: "Seconds requests in flight get to finish after SIGTERM or SIGINT.")
    public var shutdownGrace: Double

    /// The defaults outside a resolution; see `SettingGroup.resolve(flags:environment:)`.
    public init() {}

    /// The server's configuration from these settings.
    public var serverConfiguration: HTTPServerConfiguration {
        HTTPServerConfiguration(
            host: host, port: port, backlog: backlog, headerReadTimeout: headerTimeout, idleTimeout: idleTimeout,
            writeTimeout: writeTimeout, maxConnections: maxConnections,
            parserLimits: HTTPParserLimits(
                maxRequestLineBytes: maxRequestLine, maxHeaderBytes: maxHeaderBytes, maxHeaderCount: maxHeaderCount,
                maxBodyBytes: maxBodyBytes),
            maxPipelinedRequests: maxPipelined, eventLoops: eventLoops)
    }
}
