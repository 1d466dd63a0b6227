import Foundation
import HTTPCore

#if canImport(Glibc)
    import Glibc
#endif

extension LarderProcess {
    /// Sends one request on a fresh connection (`Connection: close`) over `RawSocketClient`.
    /// - Parameters:
    ///   - method: the method.
    ///   - target: the request target, e.g. `/cache?limit=1`.
    ///   - headers: more header lines (`Name: value`).
    ///   - body: a body, sent with its `Content-Length`.
    ///   - timeout: the longest any read waits (generous: a loaded machine is slow, not wrong).
    /// - Returns: the response.
    /// - Throws: `RawSocketError` when the exchange fails.
    public func request(
        _ method: String, _ target: String, headers: [String] = [], body: String? = nil, timeout: Double = 30
    ) throws -> RawHTTPResponse {
        try RawSocketClient.exchange(
            port: port, method, target, headerLines: headers, body: body.map { Array($0.utf8) }, timeout: timeout)
    }

    /// `GET /fetch?url=<url>`, the URL percent-encoded as a query value.
    /// - Parameter url: the origin URL.
    /// - Returns: the response.
    /// - Throws: `RawSocketError` when the exchange fails.
    public func fetch(_ url: String) throws -> RawHTTPResponse {
        try request("GET", "/fetch?url=" + url.percentEncoded())
    }

    /// Runs `larder arguments…` to its end, for one-shot commands (`stats`, `backup`, `health`, a
    /// `serve` refused at startup). A `serve` that does start is sent SIGTERM once it logs where it listens,
    /// so that it ends too. The child gets the clean environment, a scratch `LARDER_DB` (a `--db` flag or
    /// `environment` wins) so nothing is written in the working directory, and `environment`.
    /// - Parameters:
    ///   - arguments: the command and its flags.
    ///   - environment: variables added to the clean environment.
    ///   - timeout: the longest it may run, in seconds; then it is killed.
    /// - Returns: the exit status and what it printed on stdout and stderr.
    /// - Throws: `LarderProcessError` when the binary is missing or the command ran past `timeout`.
    public static func run(
        _ arguments: [String], environment: [String: String] = [:], timeout: Double = 20
    ) async throws -> (status: Int32, output: String) {
        guard let binary else { throw LarderProcessError.binaryMissing }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("larder-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let log = scratch.appendingPathComponent("output.log")
        let database = ["LARDER_DB": scratch.appendingPathComponent("cache.db").path]
        let process = try ChildProcess(
            binary.path, arguments,
            environment: cleanEnvironment.merging(database) { $1 }.merging(environment) { $1 },
            standardOutput: .file(log.path), standardError: .file(log.path))
        var signalled = false
        let exited = await waitUntil(timeout: .milliseconds(Int(timeout * 1000))) {
            if !process.isRunning { return true }
            if !signalled, listeningPort(in: (try? String(contentsOf: log, encoding: .utf8)) ?? "") != nil {
                process.terminate()
                signalled = true
            }
            return false
        }
        if !exited {
            process.send(SIGKILL)
            process.waitUntilExit()
            let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            throw LarderProcessError.timedOut(arguments: arguments, seconds: timeout, output: output)
        }
        process.waitUntilExit()
        return (process.terminationStatus, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }
}
