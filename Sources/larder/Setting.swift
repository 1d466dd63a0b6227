/// One setting of `larder serve`: its flag, its environment twin, its default and its help.
///
/// The table below is the single source of the flags' help, the environment overlay and the README's
/// settings table (`larder settings --markdown`).
struct Setting: Sendable, Hashable {
    /// The long flag without dashes (`port`).
    let flag: String
    /// The environment variable (`LARDER_PORT`).
    let environment: String
    /// The default, as it would be typed.
    let defaultValue: String
    /// One line of help.
    let summary: String

    /// The help text ArgumentParser shows, naming the environment variable and the default.
    var help: String { "\(summary) (env: \(environment); default: \(defaultValue.isEmpty ? "none" : defaultValue))" }

    static let host = Setting(
        flag: "host", environment: "LARDER_HOST", defaultValue: "0.0.0.0", summary: "Address to listen on.")
    static let port = Setting(
        flag: "port", environment: "LARDER_PORT", defaultValue: "8080",
        summary: "TCP port to listen on; 0 picks a free one.")
    static let db = Setting(
        flag: "db", environment: "LARDER_DB", defaultValue: "./larder.db", summary: "Path of the SQLite cache file.")
    static let logFormat = Setting(
        flag: "log-format", environment: "LARDER_LOG_FORMAT", defaultValue: "text", summary: "Log format: text or json."
    )
    static let logLevel = Setting(
        flag: "log-level", environment: "LARDER_LOG_LEVEL", defaultValue: "info",
        summary: "Lowest level logged: trace, debug, info, notice, warning, error, critical.")
    static let accessLog = Setting(
        flag: "access-log", environment: "LARDER_ACCESS_LOG", defaultValue: "true",
        summary: "Log one line per request: true or false.")
    static let headerTimeout = Setting(
        flag: "header-timeout", environment: "LARDER_HEADER_TIMEOUT", defaultValue: "10",
        summary: "Seconds for a request head from its first byte, and for each pause in its body (408 beyond).")
    static let idleTimeout = Setting(
        flag: "idle-timeout", environment: "LARDER_IDLE_TIMEOUT", defaultValue: "60",
        summary: "Seconds a keep-alive connection may wait for its next request.")
    static let writeTimeout = Setting(
        flag: "write-timeout", environment: "LARDER_WRITE_TIMEOUT", defaultValue: "30",
        summary: "Seconds a response write may make no progress before the connection is dropped.")
    static let maxConnections = Setting(
        flag: "max-connections", environment: "LARDER_MAX_CONNECTIONS", defaultValue: "10000",
        summary: "Connections served at once; beyond it new ones get 503.")
    static let backlog = Setting(
        flag: "backlog", environment: "LARDER_BACKLOG", defaultValue: "511", summary: "Listen queue length.")
    static let maxRequestLine = Setting(
        flag: "max-request-line", environment: "LARDER_MAX_REQUEST_LINE", defaultValue: "8192",
        summary: "Longest request line in bytes (414 beyond).")
    static let maxHeaderBytes = Setting(
        flag: "max-header-bytes", environment: "LARDER_MAX_HEADER_BYTES", defaultValue: "32768",
        summary: "Largest request header section in bytes (431 beyond).")
    static let maxHeaderCount = Setting(
        flag: "max-header-count", environment: "LARDER_MAX_HEADER_COUNT", defaultValue: "100",
        summary: "Most request header fields (431 beyond).")
    static let maxBodyBytes = Setting(
        flag: "max-body-bytes", environment: "LARDER_MAX_BODY_BYTES", defaultValue: "1048576",
        summary: "Largest request body in bytes (413 beyond).")
    static let maxPipelined = Setting(
        flag: "max-pipelined", environment: "LARDER_MAX_PIPELINED", defaultValue: "16",
        summary: "Requests parsed ahead of the one being answered.")
    static let eventLoops = Setting(
        flag: "event-loops", environment: "LARDER_EVENT_LOOPS", defaultValue: "0",
        summary: "Serial queues connections are spread over; 0 is one per usable CPU.")
    static let shutdownGrace = Setting(
        flag: "shutdown-grace", environment: "LARDER_SHUTDOWN_GRACE", defaultValue: "10",
        summary: "Seconds requests in flight get to finish after SIGTERM or SIGINT.")

    /// Every setting, in the order `--help` and the README list them.
    static let all: [Setting] = [
        host, port, db, logFormat, logLevel, accessLog, headerTimeout, idleTimeout, writeTimeout, maxConnections,
        backlog, maxRequestLine, maxHeaderBytes, maxHeaderCount, maxBodyBytes, maxPipelined, eventLoops, shutdownGrace,
        maxSize, adminToken, allowNetwork, connectTimeout, originTimeout, maxObjectBytes, hotBytes, hotMaxEntry,
        viaName, maxImagePixels, defaultPolicy, sweepInterval,
    ]

    /// The settings as a Markdown table for the README.
    static var markdownTable: String {
        var lines = ["| flag | environment | default | meaning |", "| --- | --- | --- | --- |"]
        for setting in all {
            lines.append(
                "| `--\(setting.flag)` | `\(setting.environment)` | `\(setting.defaultValue)` | \(setting.summary) |")
        }
        return lines.joined(separator: "\n")
    }
}
