public import HTTPServer
public import LarderAPI
public import LarderApp
public import Logging

/// How a test reaches the application: the two setups of Hummingbird's testing library.
public enum LarderTestMode: Sendable {
    /// In process: each request goes straight to the root responder and the test reads the response it
    /// sent; no socket, no server, so no framing, `Date` or problem `instance` either.
    case router
    /// A real `HTTPServer` on 127.0.0.1:0, a new connection per request: what the server adds is there.
    case live
}

/// The one way tests run Larder's routes: build the app from the route table (`LarderRoutes`) or from the
/// whole wiring of `larder serve` (`LarderWiring`), then `try await app.test(.router) { client in … }` or
/// `.live`. The server of a live test is drained when the body ends, however it ends.
public struct LarderTestApp: Sendable {
    /// The root responder: the router.
    public let responder: any HTTPResponder
    /// The live server's settings; host and port are always 127.0.0.1:0.
    public var server: HTTPServerConfiguration
    /// Told about the live server before it starts (`ReadinessHandler.attach`, `HTTPMetrics.attach`).
    public var onServer: (@Sendable (HTTPServer) -> Void)?
    /// The live server's access records (what `serve` counts for `/metrics` and logs).
    public var accessLog: (@Sendable (HTTPAccessRecord) -> Void)?
    /// Run after the test's body (the wiring's shutdown step: stores finish, hit counts are written, the
    /// sweep and the origin client stop).
    let finish: (@Sendable () -> Void)?
    /// Makes the live server as `serve` does (`LarderWiring.Wired.makeServer`); `nil`: a bare `HTTPServer`
    /// with `accessLog`, told to `onServer`.
    let makeServer: (@Sendable (HTTPServerConfiguration) -> HTTPServer)?
    /// What `serve` runs on SIGHUP; `nil` for an app made from routes.
    let accessReloader: AccessReloader?

    /// A server's settings for tests: short timeouts, two event loops.
    /// - Parameter timeout: the header, idle and write timeouts, in seconds.
    /// - Returns: the settings, on 127.0.0.1:0.
    public static func serverConfiguration(timeout: Double = 30) -> HTTPServerConfiguration {
        HTTPServerConfiguration(
            host: "127.0.0.1", port: 0, headerReadTimeout: timeout, idleTimeout: timeout, writeTimeout: timeout,
            eventLoops: 2)
    }

    /// An app answering with any responder.
    /// - Parameters:
    ///   - responder: the root responder.
    ///   - server: the live server's settings.
    ///   - onServer: told about the live server before it starts.
    public init(
        responder: any HTTPResponder, server: HTTPServerConfiguration = serverConfiguration(),
        onServer: (@Sendable (HTTPServer) -> Void)? = nil
    ) {
        self.responder = responder
        self.server = server
        self.onServer = onServer
        finish = nil
        makeServer = nil
        accessReloader = nil
    }

    /// An app serving the route table's routes for the parts given (the tests' own store, clock, origin).
    /// - Parameters:
    ///   - routes: the parts.
    ///   - server: the live server's settings.
    public init(routes: LarderRoutes, server: HTTPServerConfiguration = serverConfiguration()) {
        var attach: (@Sendable (HTTPServer) -> Void)?
        if let readiness = routes.readiness { attach = { server in readiness.attach(server) } }
        self.init(responder: routes.makeRouter(), server: server, onServer: attach)
    }

    /// The application `larder serve` runs for these settings, wired as it wires it (the database, the
    /// filters file, the admin and `/fetch` policies, every route); the process's own part (flags, signals,
    /// log set-up) is not here. The live server is the one `serve` makes (`Wired.makeServer`: readiness, HTTP
    /// metrics and access records attached) with the settings' listening limits (body size, timeouts, parser
    /// limits, event loops); only its address is a test's, 127.0.0.1:0 (loopback, a free port).
    /// - Parameters:
    ///   - settings: the resolved settings (`ServeSettings.resolve(flags:environment:)`).
    ///   - logger: where the wiring logs.
    /// - Throws: what stops `serve` before it listens (a database that cannot be opened, a bad filters file).
    public init(settings: ServeSettings, logger: Logger = Logger(label: "larder.test")) throws {
        let wired = try LarderWiring.makeResponder(settings: settings, logger: logger)
        responder = wired.responder
        server = settings.listening.serverConfiguration
        onServer = nil
        makeServer = { configuration in wired.makeServer(configuration: configuration) }
        finish = wired.finish
        accessReloader = wired.accessReloader
    }

    /// The application `larder serve` runs for these flags and environment, resolved as `serve` resolves
    /// them (flag over environment over default). `host` and `port` default to 127.0.0.1 and 0 for the
    /// resolution (so that the fetch path's own-address guard knows a test's address), and the live server
    /// listens on 127.0.0.1:0 whatever they say: a test never binds a fixed port or a public address.
    /// - Parameters:
    ///   - flags: values by flag without dashes (`["db": path, "max-size": "64M"]`).
    ///   - environment: the `LARDER_*` variables to resolve under the flags.
    ///   - logger: where the wiring logs.
    /// - Throws: `SettingsError` for a bad value, or what stops `serve` before it listens.
    public init(
        serving flags: [String: String], environment: [String: String] = [:],
        logger: Logger = Logger(label: "larder.test")
    ) throws {
        let flags = flags.merging(["host": "127.0.0.1", "port": "0"]) { given, _ in given }
        try self.init(settings: ServeSettings.resolve(flags: flags, environment: environment), logger: logger)
    }

    /// Does what `serve` does on SIGHUP: reads the key and token files again and puts them in force
    /// (`AccessReloader`), while the app keeps serving.
    /// - Returns: what changed, or the file and line at fault; `nil` for an app made from routes.
    @discardableResult
    public func reloadAccess() -> AccessReloader.Outcome? {
        accessReloader?.reload()
    }

    /// Runs `body` with a client of the app in the given setup, and always stops what it started.
    /// - Parameters:
    ///   - mode: in process (`.router`) or over a real socket (`.live`).
    ///   - body: the test.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws, or why the live server could not start.
    public func test<T>(_ mode: LarderTestMode, _ body: (LarderTestClient) async throws -> T) async throws -> T {
        defer { finish?() }
        switch mode {
        case .router:
            return try await body(LarderTestClient(responder: responder))
        case .live:
            var configuration = server
            configuration.host = "127.0.0.1"
            configuration.port = 0
            let server =
                makeServer?(configuration)
                ?? HTTPServer(configuration: configuration, responder: responder, accessLog: accessLog)
            onServer?(server)
            try server.start()
            do {
                let result = try await body(LarderTestClient(server: server))
                await server.shutdown(grace: 0)
                return result
            } catch {
                await server.shutdown(grace: 0)
                throw error
            }
        }
    }
}
