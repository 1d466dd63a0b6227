import Foundation
import TestSupport
import Testing

/// `serve --scheduling`: the server's threads run under `SCHED_BATCH` unless told otherwise, and the origin
/// client's thread keeps the default policy either way (`ThreadScheduling`).
@Suite struct ThreadSchedulingTests {
    /// Linux's policy numbers (sched.h).
    private static let other = 0
    private static let batch = 3

    /// Each thread of `pid` by name, with its policy: `/proc/PID/task/TID/stat`'s 41st field, counted after the
    /// name in parentheses (which may hold spaces), where the third field, the state, begins.
    private static func threadPolicies(of pid: Int32) throws -> [(name: String, policy: Int)] {
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
        return try tasks.map { task in
            let stat = try String(contentsOfFile: "/proc/\(pid)/task/\(task)/stat", encoding: .utf8)
            let name = try #require(stat.split(separator: "(", maxSplits: 1).last?.split(separator: ")").first)
            let fields = try #require(stat.split(separator: ")").last).split(separator: " ")
            return (String(name), try #require(Int(fields[41 - 3])))
        }
    }

    /// A server that has served a miss from `origin`: its event loop, Dispatch's workers and the origin
    /// client's thread have all run.
    private static func serverAfterAMiss(from origin: StubOrigin, arguments: [String]) async throws -> LarderProcess {
        origin.respond(to: "/a", with: .ok("a").header("Cache-Control", "max-age=60"))
        let larder = try await LarderProcess.start(arguments: ["--allow-network", "127.0.0.0/8"] + arguments)
        #expect(try larder.fetch(origin.url("/a")).body == Array("a".utf8))
        return larder
    }

    @Test func byDefaultTheServersThreadsAreBatchAndTheOriginClientsIsNot() async throws {
        let origin = try StubOrigin()
        let larder = try await Self.serverAfterAMiss(from: origin, arguments: [])
        defer { larder.stop() }
        let threads = try Self.threadPolicies(of: larder.process.processIdentifier)
        #expect(threads.filter { $0.name == "larder-origin" }.map(\.policy) == [Self.other], "\(threads)")
        let others = threads.filter { $0.name != "larder-origin" }
        // The main thread, Dispatch's manager and workers, the store's and the timers' threads.
        #expect(others.count >= 3, "\(threads)")
        #expect(others.allSatisfy { $0.policy == Self.batch }, "\(threads)")
        #expect(!larder.logText.contains("--scheduling"), "\(larder.logText)")
    }

    @Test func normalLeavesEveryThreadWithTheDefaultPolicy() async throws {
        let origin = try StubOrigin()
        let larder = try await Self.serverAfterAMiss(from: origin, arguments: ["--scheduling", "normal"])
        defer { larder.stop() }
        let threads = try Self.threadPolicies(of: larder.process.processIdentifier)
        #expect(threads.count >= 4, "\(threads)")
        #expect(threads.allSatisfy { $0.policy == Self.other }, "\(threads)")
    }
}
