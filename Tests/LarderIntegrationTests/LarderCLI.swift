import Foundation
import TestSupport
import Testing

/// Runs the built `larder` binary for the operations tests: one-shot commands bounded by a timeout.
enum LarderCLI {
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

    /// The environment of a child: this process's, without any `LARDER_*` setting.
    static var cleanEnvironment: [String: String] {
        ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LARDER_") }
    }

    /// Runs `larder arguments…` to its end (at most `timeout` seconds, then it is killed).
    /// - Returns: the exit status and what it printed on stdout and stderr.
    static func run(
        _ arguments: [String], environment: [String: String] = [:], timeout: Double = 20
    ) async throws -> (status: Int32, output: String) {
        let binary = try #require(binary, "the larder binary is not built next to the tests")
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("larder-cli-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.environment = cleanEnvironment.merging(environment) { $1 }
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let exited = await waitUntil(timeout: .seconds(timeout)) { !process.isRunning }
        if !exited { process.terminate() }
        #expect(exited, "larder \(arguments.joined(separator: " ")) did not exit in \(timeout) s")
        process.waitUntilExit()
        return (process.terminationStatus, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }
}
