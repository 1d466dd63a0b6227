import ArgumentParser
import FoundationEssentials
import LarderApp
import Upstream

/// `larder health`: exits 0 when a server answers `GET /livez` (with `--ready`, `GET /readyz`) with 200 in
/// time; the container's `HEALTHCHECK`. Prints one line either way, so `docker inspect` shows why a check
/// failed.
struct HealthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health", abstract: "Exit 0 when the server answers /livez (or /readyz) with 200.",
        discussion: """
            Without --url it asks the server this environment configures: LARDER_HOST (0.0.0.0 and :: \
            become loopback) and LARDER_PORT.
            """)

    @Option(help: "The server, e.g. http://127.0.0.1:8080 or https://[::1]:8443 (its path is ignored).")
    var url: String?
    @Option(help: "Seconds to wait for the answer.") var timeout: Double = 3
    @Option(help: "PEM file of CA certificates trusted for an https server, in addition to the system store.")
    var caFile: String?
    @Flag(help: "Ask /readyz (draining, store writable) instead of /livez (the process answers).")
    var ready = false

    func run() throws {
        let server: String
        do {
            server = try url ?? Self.configuredURL()
        } catch {
            // The same environment would stop `serve` too; say why here, where the health check shows it.
            print("unhealthy: \(error)")
            throw ExitCode.failure
        }
        do {
            let path = ready ? "/readyz" : "/livez"
            let target = try ReplicaClient.target(base: server, path: path)
            let client = ReplicaClient(timeout: .seconds(timeout), tls: OriginTLS(caFile: caFile))
            let response = try client.send("GET", url: target.url)
            guard response.status == 200 else {
                // /readyz says why in its body; one line of it is what `docker inspect` shows.
                let body = String(decoding: response.body.prefix(300), as: UTF8.self)
                print("unhealthy: \(target.authority) answered \(path) with \(response.status) \(body)")
                throw ExitCode.failure
            }
            print("healthy: \(target.authority) answered \(path) with 200")
        } catch let error as ReplicaClientError {
            print("unhealthy: \(error)")
            throw ExitCode.failure
        }
    }

    /// The URL of the server that `larder serve` would start with this environment.
    static func configuredURL(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        let listening = try ListeningSettings.resolving(in: environment)
        var host = listening.host
        switch host {
        case "0.0.0.0", "": host = "127.0.0.1"
        case "::", "[::]": host = "::1"
        default: break
        }
        if host.contains(":") { host = "[\(host)]" }
        return "http://\(host):\(listening.port)"
    }
}
