import ArgumentParser
import Dispatch
import FoundationEssentials
import HTTPServer
import LarderAPI
import LarderApp
import Logging

/// `larder serve`: runs the HTTP service until SIGTERM or SIGINT, then drains and exits 0; SIGHUP re-reads
/// the key and token files.
///
/// Its flags are not ArgumentParser `@Option`s: `ServeArguments` parses them from the declarations in
/// `LarderApp` (`ServeSettings`), so that a setting is written in one place, and `--help` is made from
/// the same declarations.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: ServeSettings.abstract,
        discussion: "\(ServeSettings.precedence) `larder serve --help` lists every setting.", helpNames: [])

    @Argument(parsing: .captureForPassthrough, help: "Settings, as --name value or --name=value.")
    var arguments: [String] = []

    /// The settings, resolved once by `validate()`; `nil` when help was asked for.
    private var settings: ServeSettings?
    private let environment = ProcessInfo.processInfo.environment

    /// How the admin API can be reached, said once at start: a container without a token otherwise answers
    /// 403 to every admin call with nothing in its log to say why.
    /// - Parameter tokens: the admin tokens' names and scopes (never their secrets); empty when none is set.
    /// - Returns: the line.
    static func adminAccessLine(tokens: [(name: String, scope: String)]) -> String {
        let routes = "admin API (\(AdminSettings.routes.joined(separator: ", ")))"
        guard !tokens.isEmpty else {
            return "\(routes) answers loopback clients only; set LARDER_ADMIN_TOKEN (--admin-token) to reach it "
                + "from elsewhere with Authorization: Bearer <token>"
        }
        let named = tokens.map { "\($0.name) (\($0.scope))" }.joined(separator: ", ")
        return "\(routes) requires Authorization: Bearer <token> from any client; tokens: \(named)"
    }

    /// How `/fetch` can be used, said once at start.
    /// - Parameters:
    ///   - signingKeys: how many URL signing keys are configured.
    ///   - tokens: the caller tokens' names.
    /// - Returns: the line.
    static func fetchAccessLine(signingKeys: Int, tokens: [String]) -> String {
        guard signingKeys > 0 || !tokens.isEmpty else { return "/fetch is open to any client" }
        var ways: [String] = []
        if signingKeys > 0 { ways.append("a signed URL (\(signingKeys) key\(signingKeys == 1 ? "" : "s"))") }
        if !tokens.isEmpty { ways.append("a Larder-Token (\(tokens.joined(separator: ", ")))") }
        return "/fetch requires \(ways.joined(separator: " or "))"
    }

    // Only the arguments come from the command line; the settings are made from them in `validate()`.
    private enum CodingKeys: CodingKey { case arguments }

    /// Resolves the settings here rather than in `run()`, so that ArgumentParser reports a bad value with
    /// `serve`'s usage line.
    mutating func validate() throws {
        do {
            switch try ServeArguments.parse(arguments, declarations: ServeSettings.declarations) {
            case .help: settings = nil
            case .flags(let flags): settings = try ServeSettings.resolve(flags: flags, environment: environment)
            }
        } catch {
            throw ValidationError(error.description)
        }
    }

    func run() throws {
        guard let settings else {
            print(ServeSettings.helpText())
            return
        }
        // Before any thread exists, so that every thread the server starts inherits it.
        let schedulingRefused = ThreadScheduling.apply(settings.listening.scheduling)
        SignalDrain.catchDrainSignals()
        // Before any thread exists: the server's threads share a bounded number of malloc arenas.
        ProcessMemory.limitArenas(to: max(2, ProcessInfo.processInfo.activeProcessorCount))
        ProcessMemory.holdFreedHeap(trimThreshold: 32 << 20, mapThreshold: 8 << 20)
        LoggingSystem.bootstrap { label in
            var handler = LineLogHandler(label: label, format: settings.logging.format)
            handler.logLevel = settings.logging.level
            return handler
        }
        let logger = Logger(label: "larder")
        if let schedulingRefused {
            let policy = settings.listening.scheduling.rawValue
            logger.warning(
                "the kernel refused --scheduling \(policy) (errno \(schedulingRefused)); threads keep the default")
        }
        for warning in EnvironmentAudit.warnings(environment: environment, declarations: ServeSettings.declarations) {
            logger.warning("\(warning)")
        }
        let wired = try LarderWiring.makeResponder(settings: settings, logger: logger)
        // Every access record feeds the metrics; the log line is written only when the access log is on.
        let server = wired.makeServer(
            configuration: settings.listening.serverConfiguration,
            onError: { error in logger.error("\(error)") })
        // Before "listening on": whoever waits for that line (an orchestrator, a script, a test) may send
        // SIGTERM at once; the handler caught it since the start of `run`, so it waits in the pipe for this.
        SignalDrain.install(
            server: server, grace: settings.listening.shutdownGrace, logger: logger,
            reload: { _ = wired.accessReloader.reload() }, finish: wired.finish)
        do {
            try server.start()
        } catch {
            logger.critical("cannot listen: \(error)")
            throw ExitCode.failure
        }
        ProcessMemory.trimPeriodically(every: 30, whenShrunkBy: 16 << 20, held: wired.transientBytes)
        let host = settings.listening.host
        logger.info("listening on \(host):\(server.port)", metadata: ["host": "\(host)", "port": "\(server.port)"])
        // After "listening on", which scripts and tests wait for as the first info line; from the policies in
        // force (the secrets files were read at wiring; SIGHUP reads them again and logs what changed).
        logger.info("\(Self.adminAccessLine(tokens: wired.admin.tokenSummary.map { ($0.name, $0.scope.rawValue) }))")
        let fetchAccess = wired.fetchAccess.summary
        logger.info("\(Self.fetchAccessLine(signingKeys: fetchAccess.signingKeys, tokens: fetchAccess.tokenNames))")
        dispatchMain()
    }
}
