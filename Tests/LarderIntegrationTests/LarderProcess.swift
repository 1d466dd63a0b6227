import Foundation
import Testing

/// The built `larder` binary, run on `127.0.0.1:0` with its own database and log file, for tests that
/// need the real wiring. Stopped (SIGTERM, then SIGKILL) and cleaned up by `stop()`, which `deinit` runs.
final class LarderProcess {
    /// The port the server reported it listens on.
    let port: Int
    let process: Process
    let logURL: URL
    let databasePath: String

    /// The `larder` binary next to the test bundle (both are products of the same build).
    static var binary: URL? {
        var directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("larder")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }

    /// Starts `larder serve` and waits (at most 30 s: a loaded machine starves the test pool) until it logs
    /// its port.
    /// - Parameters:
    ///   - arguments: flags added after `serve --host 127.0.0.1 --port 0`.
    ///   - environment: variables added to the test's environment.
    /// - Throws: when the binary is missing or the server does not come up.
    init(arguments: [String] = [], environment: [String: String] = [:]) async throws {
        let binary = try #require(Self.binary, "the larder binary is not built next to the tests")
        let unique = UUID().uuidString
        let temporary = FileManager.default.temporaryDirectory
        logURL = temporary.appendingPathComponent("larder-hostile-\(unique).log")
        databasePath = temporary.appendingPathComponent("larder-hostile-\(unique).db").path
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        process = Process()
        process.executableURL = binary
        process.arguments = ["serve", "--host", "127.0.0.1", "--port", "0"] + arguments
        var variables = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LARDER_") }
        variables["LARDER_DB"] = databasePath
        process.environment = variables.merging(environment) { $1 }
        let handle = try FileHandle(forWritingTo: logURL)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        var found: Int?
        let deadline = ContinuousClock.now + .seconds(30)
        let logURL = self.logURL
        while found == nil && ContinuousClock.now < deadline && process.isRunning {
            let log = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
            if let range = log.range(of: "listening on 127.0.0.1:") {
                found = Int(log[range.upperBound...].prefix { $0.isNumber })
            } else {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        guard let found else {
            if process.isRunning { process.terminate() }
            let log = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
            Issue.record("larder did not start: \(log)")
            // A failed initializer runs no deinit: clean up here.
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: databasePath + suffix) }
            try? FileManager.default.removeItem(at: logURL)
            throw CancellationError()
        }
        port = found
    }

    deinit { stop() }

    /// The log written so far, as bytes (control bytes included, if any slipped through).
    var log: [UInt8] { (try? Array(Data(contentsOf: logURL))) ?? [] }

    /// Stops the server and removes its files.
    func stop() {
        if process.isRunning {
            process.terminate()
            let deadline = Date().addingTimeInterval(5)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: databasePath + suffix) }
        try? FileManager.default.removeItem(at: logURL)
    }
}
