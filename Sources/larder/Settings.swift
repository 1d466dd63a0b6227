import ArgumentParser
import CachePolicy
import Glibc
import HTTPCore
import HTTPServer
import Logging

/// The resolved settings of `larder serve`: for each one the flag wins over the environment, and the
/// environment over the default.
struct Settings: Sendable {
    enum LogFormat: String, Sendable { case text, json }

    var server: HTTPServerConfiguration
    var databasePath: String
    var logFormat: LogFormat
    var logLevel: Logger.Level
    var accessLog: Bool
    var shutdownGrace: Double
    var maxSize: Int?
    var adminToken: String?
    var defaultPolicy: FilterDefaultPolicy
    var fetch: FetchSettings
    var sweepInterval: Double

    /// Resolves every setting.
    /// - Parameters:
    ///   - flags: the values given on the command line, by setting (absent ones are `nil`).
    ///   - environment: looks up an environment variable.
    /// - Throws: `ValidationError` naming the flag, the variable and the bad value.
    init(flags: [Setting: String], environment: @escaping (String) -> String? = Settings.processEnvironment) throws {
        let resolver = Resolver(flags: flags, environment: environment)
        var server = HTTPServerConfiguration()
        server.host = resolver.string(.host)
        server.port = try resolver.integer(.port, in: 0...65_535)
        server.backlog = try resolver.integer(.backlog, in: 1...65_535)
        server.headerReadTimeout = try resolver.seconds(.headerTimeout)
        server.idleTimeout = try resolver.seconds(.idleTimeout)
        server.writeTimeout = try resolver.seconds(.writeTimeout)
        server.maxConnections = try resolver.integer(.maxConnections, in: 1...1_000_000)
        server.parserLimits = HTTPParserLimits(
            maxRequestLineBytes: try resolver.integer(.maxRequestLine, in: 64...1_048_576),
            maxHeaderBytes: try resolver.integer(.maxHeaderBytes, in: 256...16_777_216),
            maxHeaderCount: try resolver.integer(.maxHeaderCount, in: 1...10_000),
            maxBodyBytes: try resolver.integer(.maxBodyBytes, in: 0...Int(Int32.max)))
        server.maxPipelinedRequests = try resolver.integer(.maxPipelined, in: 1...1024)
        server.eventLoops = try resolver.integer(.eventLoops, in: 0...256)
        self.server = server
        databasePath = resolver.string(.db)
        logFormat = try resolver.choice(.logFormat)
        logLevel = try resolver.choice(.logLevel)
        accessLog = try resolver.boolean(.accessLog)
        shutdownGrace = try resolver.seconds(.shutdownGrace)
        maxSize = try Settings.parseSize(resolver.raw(.maxSize).text, origin: resolver.raw(.maxSize).origin)
        adminToken = resolver.string(.adminToken).isEmpty ? nil : resolver.string(.adminToken)
        defaultPolicy = try resolver.choice(.defaultPolicy)
        fetch = try FetchSettings(resolver: resolver)
        sweepInterval = try resolver.seconds(.sweepInterval)
    }

    static func processEnvironment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// Reads settings: flag over environment over default, each failure naming where the value came from.
    struct Resolver {
        let flags: [Setting: String]
        let environment: (String) -> String?

        /// The raw text and where it came from, for error messages.
        func raw(_ setting: Setting) -> (text: String, origin: String) {
            if let value = flags[setting] { return (value, "--\(setting.flag)") }
            if let value = environment(setting.environment), !value.isEmpty { return (value, setting.environment) }
            return (setting.defaultValue, "default of --\(setting.flag)")
        }

        func string(_ setting: Setting) -> String { raw(setting).text }

        func integer(_ setting: Setting, in range: ClosedRange<Int>) throws -> Int {
            let (text, origin) = raw(setting)
            guard let value = Int(text), range.contains(value) else {
                throw ValidationError(
                    "\(origin): '\(text)' is not an integer in \(range.lowerBound)...\(range.upperBound)")
            }
            return value
        }

        func seconds(_ setting: Setting) throws -> Double {
            let (text, origin) = raw(setting)
            guard let value = Double(text), value >= 0, value.isFinite else {
                throw ValidationError("\(origin): '\(text)' is not a number of seconds")
            }
            return value
        }

        func positiveSeconds(_ setting: Setting) throws -> Double {
            let (text, origin) = raw(setting)
            guard let value = Double(text), value > 0, value.isFinite else {
                throw ValidationError("\(origin): '\(text)' is not a positive number of seconds")
            }
            return value
        }

        func boolean(_ setting: Setting) throws -> Bool {
            let (text, origin) = raw(setting)
            switch text.lowercased() {
            case "true", "1", "yes", "on": return true
            case "false", "0", "no", "off": return false
            default: throw ValidationError("\(origin): '\(text)' is not true or false")
            }
        }

        func choice<T: RawRepresentable<String>>(_ setting: Setting) throws -> T {
            let (text, origin) = raw(setting)
            guard let value = T(rawValue: text.lowercased()) else {
                throw ValidationError("\(origin): '\(text)' is not one of the accepted values")
            }
            return value
        }
    }
}
