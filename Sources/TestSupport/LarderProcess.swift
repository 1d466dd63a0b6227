public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The built `larder` binary, run by a test: `larder serve` on 127.0.0.1 port 0 with a log file and a
/// scratch database (or the test's own), or a one-shot command with `run(_:environment:timeout:)`.
///
/// Every test that starts the real binary goes through here, so that all of them find it, start it, wait
/// for it and stop it the same way. `stop()` (SIGTERM, at most 10 s, then SIGKILL) runs from `deinit` too.
public final class LarderProcess {
    /// The running `larder serve`, for tests that signal it or read how it ended.
    public let process: ChildProcess
    /// The port the server reported it listens on.
    public let port: Int
    /// The database the server opened (`--db`).
    public let databasePath: String
    /// The directory of the log file (and of the database, unless the test gave one); removed by `stop()`.
    private let scratch: URL
    private var stopped = false

    /// The longest `start` waits for the port: a loaded 2-core machine starves the test pool, and the wait
    /// ends as soon as the port appears.
    public static let startTimeout: Duration = .seconds(30)

    /// The `larder` binary next to the test bundle (both are products of the same build).
    public static var binary: URL? {
        var directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        // The bundle may be a directory (`X.xctest/...`): walk up to the products folder.
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("larder")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }

    /// The environment of a child: this process's, without any `LARDER_*` setting, so that a developer's
    /// own settings never change what a test sees.
    public static var cleanEnvironment: [String: String] {
        ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LARDER_") }
    }

    private init(process: ChildProcess, port: Int, databasePath: String, scratch: URL) {
        self.process = process
        self.port = port
        self.databasePath = databasePath
        self.scratch = scratch
    }

    /// The file that receives the server's stdout and stderr: always in the scratch directory, so kept as
    /// that one fact rather than as a second path that could point elsewhere.
    public var logURL: URL { Self.logURL(in: scratch) }

    private static func logURL(in scratch: URL) -> URL { scratch.appendingPathComponent("serve.log") }

    /// Starts `larder serve --host 127.0.0.1 --port 0 --db <database> arguments…` and waits (at most
    /// `startTimeout`) until it logs `listening on 127.0.0.1:<port>`.
    /// - Parameters:
    ///   - arguments: flags added after the address and the database.
    ///   - environment: variables added to the clean environment.
    ///   - database: the database file; `nil` for a scratch one that `stop()` removes. A given database is
    ///     the test's and is kept, so that a restart can reuse it.
    /// - Returns: the running server.
    /// - Throws: `LarderProcessError` with the log when the binary is missing or the server does not start.
    public static func start(
        arguments: [String] = [], environment: [String: String] = [:], database: String? = nil
    ) async throws -> LarderProcess {
        guard let binary else { throw LarderProcessError.binaryMissing }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("larder-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let logURL = logURL(in: scratch)
        let databasePath = database ?? scratch.appendingPathComponent("cache.db").path
        let process: ChildProcess
        do {
            process = try ChildProcess(
                binary.path, ["serve", "--host", "127.0.0.1", "--port", "0", "--db", databasePath] + arguments,
                environment: cleanEnvironment.merging(environment) { $1 }, standardOutput: .file(logURL.path),
                standardError: .file(logURL.path))
        } catch {
            try? FileManager.default.removeItem(at: scratch)
            throw error
        }
        var port: Int?
        let deadline = ContinuousClock.now + startTimeout
        while port == nil, process.isRunning, ContinuousClock.now < deadline {
            port = listeningPort(in: (try? String(contentsOf: logURL, encoding: .utf8)) ?? "")
            if port == nil { try? await Task.sleep(for: .milliseconds(20)) }
        }
        // The port may have been logged just before an exit ended the loop.
        port = port ?? listeningPort(in: (try? String(contentsOf: logURL, encoding: .utf8)) ?? "")
        let larder = LarderProcess(
            process: process, port: port ?? 0, databasePath: databasePath, scratch: scratch)
        guard port != nil else {
            let log = larder.logText
            larder.stop()
            throw LarderProcessError.didNotStart(arguments: arguments, log: log)
        }
        return larder
    }

    deinit { stop() }

    /// The base URL, `http://127.0.0.1:<port>`.
    public var url: String { "http://127.0.0.1:\(port)" }

    /// The log written so far, as bytes (control bytes included, if any slipped through).
    public var logBytes: [UInt8] { (try? Array(Data(contentsOf: logURL))) ?? [] }

    /// The log written so far, as text.
    public var logText: String { String(decoding: logBytes, as: UTF8.self) }

    /// Waits (at most `timeout`) until the process has exited, for tests that signal it themselves.
    /// - Parameter timeout: the longest wait.
    /// - Returns: whether it exited in time.
    public func waitForExit(timeout: Duration = .seconds(10)) async -> Bool {
        await waitUntil(timeout: timeout) { !process.isRunning }
    }

    /// Stops the server (SIGTERM, at most 10 s for it to exit, then SIGKILL) and removes the scratch
    /// files: the log, and the database unless the test gave it. Safe to call more than once.
    public func stop() {
        if process.isRunning {
            process.terminate()
            let deadline = ContinuousClock.now + .seconds(10)
            while process.isRunning, ContinuousClock.now < deadline { usleep(10_000) }
            if process.isRunning {
                process.send(SIGKILL)
                process.waitUntilExit()
            }
        }
        guard !stopped else { return }
        stopped = true
        try? FileManager.default.removeItem(at: scratch)
    }

    /// `kill -9`: ends the server at once, without draining, and waits for the exit (crash tests). The
    /// scratch files stay until `stop()`.
    public func killAbruptly() {
        guard process.isRunning else { return }
        process.send(SIGKILL)
        process.waitUntilExit()
    }

    /// The port in the first `listening on <host>:<port>` of a log (`::1:<port>` for IPv6 loopback).
    static func listeningPort(in log: String) -> Int? {
        guard let range = log.range(of: "listening on ") else { return nil }
        // The address ends where text and JSON logs differ: a space, or the closing quote.
        let address = log[range.upperBound...].prefix { $0.isHexDigit || $0 == "." || $0 == ":" }
        guard let colon = address.lastIndex(of: ":") else { return nil }
        return Int(address[address.index(after: colon)...])
    }
}

/// Why a `larder` process could not be used.
public enum LarderProcessError: Error, CustomStringConvertible {
    /// No `larder` executable next to the test bundle.
    case binaryMissing
    /// `larder serve` exited or never said where it listens; `log` is everything it wrote.
    case didNotStart(arguments: [String], log: String)
    /// A one-shot command ran past its timeout and was stopped; `output` is what it wrote.
    case timedOut(arguments: [String], seconds: Double, output: String)

    /// The reason, with the log or output that explains it.
    public var description: String {
        switch self {
        case .binaryMissing:
            "the larder binary is not built next to the tests: run `swift build --build-tests` first"
        case .didNotStart(let arguments, let log):
            "larder serve \(arguments.joined(separator: " ")) did not start in time; its log:\n\(log)"
        case .timedOut(let arguments, let seconds, let output):
            "larder \(arguments.joined(separator: " ")) did not exit in \(seconds) s; its output:\n\(output)"
        }
    }
}
