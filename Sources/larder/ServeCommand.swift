import ArgumentParser
import Dispatch
import Glibc
import HTTPServer
import LarderAPI
import Logging

/// `larder serve`: runs the HTTP service until SIGTERM or SIGINT, then drains and exits 0.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Run the service.",
        discussion: "Each flag has a LARDER_* environment twin; the flag wins over the environment.")

    @Option(name: .customLong("host"), help: ArgumentHelp(Setting.host.help)) var host: String?
    @Option(name: .customLong("port"), help: ArgumentHelp(Setting.port.help)) var port: String?
    @Option(name: .customLong("db"), help: ArgumentHelp(Setting.db.help)) var db: String?
    @Option(name: .customLong("log-format"), help: ArgumentHelp(Setting.logFormat.help)) var logFormat: String?
    @Option(name: .customLong("log-level"), help: ArgumentHelp(Setting.logLevel.help)) var logLevel: String?
    @Option(name: .customLong("access-log"), help: ArgumentHelp(Setting.accessLog.help)) var accessLog: String?
    @Option(name: .customLong("header-timeout"), help: ArgumentHelp(Setting.headerTimeout.help))
    var headerTimeout: String?
    @Option(name: .customLong("idle-timeout"), help: ArgumentHelp(Setting.idleTimeout.help)) var idleTimeout: String?
    @Option(name: .customLong("write-timeout"), help: ArgumentHelp(Setting.writeTimeout.help)) var writeTimeout: String?
    @Option(name: .customLong("max-connections"), help: ArgumentHelp(Setting.maxConnections.help))
    var maxConnections: String?
    @Option(name: .customLong("backlog"), help: ArgumentHelp(Setting.backlog.help)) var backlog: String?
    @Option(name: .customLong("max-request-line"), help: ArgumentHelp(Setting.maxRequestLine.help))
    var maxRequestLine: String?
    @Option(name: .customLong("max-header-bytes"), help: ArgumentHelp(Setting.maxHeaderBytes.help))
    var maxHeaderBytes: String?
    @Option(name: .customLong("max-header-count"), help: ArgumentHelp(Setting.maxHeaderCount.help))
    var maxHeaderCount: String?
    @Option(name: .customLong("max-body-bytes"), help: ArgumentHelp(Setting.maxBodyBytes.help))
    var maxBodyBytes: String?
    @Option(name: .customLong("max-pipelined"), help: ArgumentHelp(Setting.maxPipelined.help)) var maxPipelined: String?
    @Option(name: .customLong("event-loops"), help: ArgumentHelp(Setting.eventLoops.help)) var eventLoops: String?
    @Option(name: .customLong("shutdown-grace"), help: ArgumentHelp(Setting.shutdownGrace.help))
    var shutdownGrace: String?
    @Option(name: .customLong("max-size"), help: ArgumentHelp(Setting.maxSize.help)) var maxSize: String?
    @Option(name: .customLong("admin-token"), help: ArgumentHelp(Setting.adminToken.help)) var adminToken: String?
    @Option(name: .customLong("allow-network"), help: ArgumentHelp(Setting.allowNetwork.help))
    var allowNetwork: [String] = []
    @Option(name: .customLong("connect-timeout"), help: ArgumentHelp(Setting.connectTimeout.help))
    var connectTimeout: String?
    @Option(name: .customLong("origin-timeout"), help: ArgumentHelp(Setting.originTimeout.help))
    var originTimeout: String?
    @Option(name: .customLong("max-object-bytes"), help: ArgumentHelp(Setting.maxObjectBytes.help))
    var maxObjectBytes: String?
    @Option(name: .customLong("hot-bytes"), help: ArgumentHelp(Setting.hotBytes.help)) var hotBytes: String?
    @Option(name: .customLong("hot-max-entry"), help: ArgumentHelp(Setting.hotMaxEntry.help)) var hotMaxEntry: String?
    @Option(name: .customLong("via-name"), help: ArgumentHelp(Setting.viaName.help)) var viaName: String?
    @Option(name: .customLong("max-image-pixels"), help: ArgumentHelp(Setting.maxImagePixels.help))
    var maxImagePixels: String?
    @Option(name: .customLong("default-policy"), help: ArgumentHelp(Setting.defaultPolicy.help))
    var defaultPolicy: String?
    @Option(name: .customLong("sweep-interval"), help: ArgumentHelp(Setting.sweepInterval.help))
    var sweepInterval: String?

    /// The flags given, by setting.
    private var givenFlags: [Setting: String] {
        let pairs: [(Setting, String?)] = [
            (.host, host), (.port, port), (.db, db), (.logFormat, logFormat), (.logLevel, logLevel),
            (.accessLog, accessLog), (.headerTimeout, headerTimeout), (.idleTimeout, idleTimeout),
            (.writeTimeout, writeTimeout), (.maxConnections, maxConnections), (.backlog, backlog),
            (.maxRequestLine, maxRequestLine), (.maxHeaderBytes, maxHeaderBytes), (.maxHeaderCount, maxHeaderCount),
            (.maxBodyBytes, maxBodyBytes), (.maxPipelined, maxPipelined), (.eventLoops, eventLoops),
            (.shutdownGrace, shutdownGrace), (.maxSize, maxSize), (.adminToken, adminToken),
            (.allowNetwork, allowNetwork.isEmpty ? nil : allowNetwork.joined(separator: ",")),
            (.connectTimeout, connectTimeout), (.originTimeout, originTimeout), (.maxObjectBytes, maxObjectBytes),
            (.hotBytes, hotBytes), (.hotMaxEntry, hotMaxEntry),
            (.viaName, viaName), (.maxImagePixels, maxImagePixels), (.defaultPolicy, defaultPolicy),
            (.sweepInterval, sweepInterval),
        ]
        return Dictionary(uniqueKeysWithValues: pairs.compactMap { setting, value in value.map { (setting, $0) } })
    }

    func run() throws {
        SignalDrain.blockDrainSignals()
        let settings = try Settings(flags: givenFlags)
        LoggingSystem.bootstrap { label in
            var handler: any LogHandler =
                settings.logFormat == .json ? JSONLogHandler(label: label) : TextLogHandler(label: label)
            handler.logLevel = settings.logLevel
            return handler
        }
        let logger = Logger(label: "larder")
        let metrics = ServeMetrics()
        let wired = try LarderWiring.makeResponder(settings: settings, logger: logger, metrics: metrics)
        // Every access record feeds the metrics; the log line is written only when the access log is on.
        let accessLog = metrics.accessRecordSink(
            accessLogger: settings.accessLog ? AccessLogger(format: settings.logFormat) : nil)
        let server = HTTPServer(
            configuration: settings.server, responder: wired.responder, accessLog: accessLog,
            onError: { error in Logger(label: "larder").error("\(error)") })
        metrics.http.attach(server)
        // Before "listening on": whoever waits for that line (an orchestrator, a script, a test) may send
        // SIGTERM at once; the signals are blocked since the start of `run`, so it waits for the source.
        SignalDrain.install(server: server, grace: settings.shutdownGrace, logger: logger, finish: wired.finish)
        do {
            try server.start()
        } catch {
            logger.critical("cannot listen: \(error)")
            throw ExitCode.failure
        }
        logger.info(
            "listening on \(settings.server.host):\(server.port)",
            metadata: ["host": "\(settings.server.host)", "port": "\(server.port)"])
        dispatchMain()
    }
}
