import Foundation
import Testing

/// A `larder serve` process on 127.0.0.1 and a free port, with a scratch database; stopped and cleaned
/// up by `stop()` (call it in a `defer`).
final class ServedLarder {
    let process = Process()
    let port: Int
    private let scratch: URL

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

    /// Starts the server and waits (at most 30 s: the whole suite starts processes at once on a loaded
    /// machine) until it logs the port it listens on.
    /// - Parameter arguments: extra `serve` flags.
    /// - Throws: when the binary is missing, cannot start, or never says where it listens.
    init(arguments: [String] = []) async throws {
        let binary = try #require(Self.binary, "the larder binary is not built next to the tests")
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("larder-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let log = scratch.appendingPathComponent("log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.executableURL = binary
        process.arguments = ["serve", "--host", "127.0.0.1", "--port", "0"] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging([
            "LARDER_DB": scratch.appendingPathComponent("cache.db").path
        ]) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: log)
        try process.run()
        var found: Int?
        let deadline = Date().addingTimeInterval(30)
        while found == nil, Date() < deadline, process.isRunning {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: "listening on 127.0.0.1:") {
                found = Int(text[range.upperBound...].prefix { $0.isNumber })
            }
            if found == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        guard let found else {
            if process.isRunning { process.terminate() }
            try? FileManager.default.removeItem(at: scratch)
            throw CocoaError(
                .fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "larder never said where it listens"])
        }
        port = found
    }

    /// Stops the server (SIGTERM, then waits at most 10 s) and removes its scratch files.
    func stop() {
        if process.isRunning { process.terminate() }
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        try? FileManager.default.removeItem(at: scratch)
    }
}
