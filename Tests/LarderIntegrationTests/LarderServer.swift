import Foundation
import TestSupport
import Testing

/// A `larder serve` process on 127.0.0.1 port 0; SIGTERM in `stop()` or when released.
final class LarderServer {
    let process = Process()
    let port: Int
    let database: String
    private let log: URL

    /// Starts a server and waits (10 s at most) until it says where it listens.
    /// - Parameters:
    ///   - database: the database file.
    ///   - arguments: more `serve` flags.
    init(database: String, arguments: [String] = []) async throws {
        let binary = try #require(LarderCLI.binary, "the larder binary is not built next to the tests")
        self.database = database
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("larder-serve-\(UUID().uuidString).log")
        self.log = log
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.executableURL = binary
        process.arguments =
            ["serve", "--host", "127.0.0.1", "--port", "0", "--db", database, "--access-log", "false"] + arguments
        process.environment = LarderCLI.cleanEnvironment
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        var found: Int?
        _ = await waitUntil(timeout: .seconds(10)) {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            guard let range = text.range(of: "listening on 127.0.0.1:") else { return false }
            found = Int(text[range.upperBound...].prefix { $0.isNumber })
            return found != nil
        }
        guard let found else {
            process.terminate()
            throw ServerDidNotStart(log: (try? String(contentsOf: log, encoding: .utf8)) ?? "")
        }
        port = found
    }

    deinit {
        if process.isRunning { process.terminate() }
        try? FileManager.default.removeItem(at: log)
    }

    /// The base URL.
    var url: String { "http://127.0.0.1:\(port)" }

    /// Sends one request on a fresh connection.
    /// - Parameters:
    ///   - method: the method.
    ///   - target: the request target.
    ///   - headers: more header lines (`Name: value`).
    /// - Returns: the response.
    func request(_ method: String, _ target: String, headers: [String] = []) throws -> RawHTTPResponse {
        let client = try RawSocketClient(port: port)
        let extra = headers.map { $0 + "\r\n" }.joined()
        try client.send("\(method) \(target) HTTP/1.1\r\nHost: test\r\n\(extra)\r\n")
        return try client.readResponse(isHeadResponse: method == "HEAD")
    }

    /// `GET /fetch?url=…`.
    func fetch(_ url: String) throws -> RawHTTPResponse {
        let encoded = url.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? url
        return try request("GET", "/fetch?url=\(encoded)")
    }

    /// SIGTERM, then waits (10 s at most) for the exit.
    func stop() async {
        guard process.isRunning else { return }
        process.terminate()
        _ = await waitUntil(timeout: .seconds(10)) { !self.process.isRunning }
    }
}

/// `larder serve` never said where it listens.
struct ServerDidNotStart: Error, CustomStringConvertible {
    let log: String
    var description: String { "larder serve did not start: \(log)" }
}
