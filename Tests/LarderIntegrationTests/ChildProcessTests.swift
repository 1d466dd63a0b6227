import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The test harness's `posix_spawn` wrapper, which every test that runs a program goes through.
@Suite struct ChildProcessTests {
    @Test func anExitStatusIsReportedAsAnExit() throws {
        let process = try ChildProcess("/bin/sh", ["-c", "exit 3"])
        process.waitUntilExit()
        #expect(!process.isRunning)
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 3)
    }

    @Test func aKilledChildIsReportedWithItsSignal() throws {
        let process = try ChildProcess("/bin/sleep", ["30"])
        #expect(process.isRunning)
        process.send(SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(process.terminationStatus == SIGKILL)
        // Reaped once: asking again neither blocks nor changes the answer.
        #expect(!process.isRunning)
        #expect(process.terminationStatus == SIGKILL)
    }

    /// 4 MiB through `cat`: more than a pipe holds both ways, so writing all before reading would stall.
    @Test func inputAndOutputFlowAtOnce() throws {
        let bytes = CacheCoreFixtures.randomBody(length: 4 << 20)
        let process = try ChildProcess("/bin/cat", pipeInput: true, standardOutput: .pipe)
        let (status, output) = process.communicate(bytes)
        #expect(status == 0)
        let same = output == bytes
        #expect(same, "cat returned \(output.count) bytes")
    }

    @Test func standardErrorCanShareTheOutputPipeOrAFile() throws {
        let shared = try ChildProcess(
            "/bin/sh", ["-c", "echo out; echo err >&2"], standardOutput: .pipe, standardError: .pipe)
        #expect(String(decoding: shared.communicate().output, as: UTF8.self) == "out\nerr\n")

        let directory = StorageTestDirectory()
        let log = directory.file("child.log")
        let logged = try ChildProcess(
            "/bin/sh", ["-c", "echo out; echo err >&2"], standardOutput: .file(log), standardError: .file(log))
        #expect(logged.terminationStatus == 0)
        #expect(try String(contentsOfFile: log, encoding: .utf8) == "out\nerr\n")
    }

    /// The child gets only its three standard descriptors, even ones the test opened without close-on-exec.
    @Test func noOtherDescriptorIsInherited() throws {
        let directory = StorageTestDirectory()
        let marker = directory.file("inherited-\(UUID().uuidString)")
        let descriptor = open(marker, O_CREAT | O_RDWR, 0o600)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let process = try ChildProcess("/bin/ls", ["-l", "/proc/self/fd/"], standardOutput: .pipe)
        let listing = String(decoding: process.communicate().output, as: UTF8.self)
        #expect(listing.contains("/proc/"), "ls listed nothing: \(listing)")
        #expect(!listing.contains(marker), "the child inherited the test's descriptor")
    }

    /// Signals the test process ignores are back to their defaults in the child, and none is blocked.
    /// Only the standard signals (1–31) are checked: glibc's spawn helper leaves its own two internal
    /// signals (32 and 33) ignored, and every glibc program installs its handlers for them at start.
    @Test func theChildStartsWithDefaultSignalHandling() throws {
        signal(SIGPIPE, SIG_IGN)
        let process = try ChildProcess("/bin/cat", ["/proc/self/status"], standardOutput: .pipe)
        let status = String(decoding: process.communicate().output, as: UTF8.self)
        func mask(_ name: String) -> UInt64? {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else {
                return nil
            }
            return UInt64(line.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces), radix: 16)
        }
        let standardSignals: UInt64 = 0x7FFF_FFFF
        #expect(mask("SigIgn").map { $0 & standardSignals } == 0)
        #expect(mask("SigBlk").map { $0 & standardSignals } == 0)
    }

    /// A child that exits without reading its input: the write fails quietly, the test process lives on.
    @Test func aChildThatIgnoresItsInputDoesNotKillTheTests() throws {
        let process = try ChildProcess("/bin/true", pipeInput: true, standardOutput: .pipe)
        process.waitUntilExit()
        let (status, output) = process.communicate(CacheCoreFixtures.randomBody(length: 1 << 20))
        #expect(status == 0)
        #expect(output.isEmpty)
    }

    @Test func aMissingProgramIsAnError() {
        #expect(throws: ChildProcessError.self) { try ChildProcess("/nonexistent/program") }
    }
}
