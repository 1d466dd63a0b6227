public import Foundation
import Synchronization

#if canImport(Glibc)
    import CLinux
    import Glibc
#endif

/// A child process started with `posix_spawn`, for tests that run the `larder` binary, Python, `sqlite3`
/// or the crash writer.
///
/// Tests do not use Foundation's `Process`: on Linux its `run()` (swift-corelibs-foundation up to Swift
/// 6.3.1) copies each `/proc/self/fd` entry's whole 256-byte name from `readdir`'s buffer and now and then
/// reads past its end, which crashed the test process (swift-corelibs-foundation pull request 5472).
/// A test process with many sockets open hit it about once in five full runs.
///
/// The child gets a clean signal state (default dispositions, nothing blocked) and no descriptor of the
/// test process but the three it is given. It is not killed when this object goes away.
public final class ChildProcess: Sendable {
    /// Where a child's standard output or error goes.
    public enum Output: Sendable {
        /// /dev/null.
        case discard
        /// Appended to the file at this path.
        case file(String)
        /// A pipe the test reads from (`output`).
        case pipe
    }

    /// Why a child ended, once it has.
    public enum TerminationReason: Sendable, Equatable {
        case exit
        case uncaughtSignal
    }

    /// The child's process ID.
    public let processIdentifier: Int32
    /// The read end of the child's standard output, when it was `.pipe`.
    public let output: FileHandle?
    /// The write end of the child's standard input, when `pipeInput` was set; close it to send EOF.
    public let input: FileHandle?
    /// The wait status from `waitpid`, once the child has been reaped.
    private let waitStatus = Mutex<Int32?>(nil)

    /// Starts `executable arguments…`.
    /// - Parameters:
    ///   - executable: an absolute path (no `PATH` search).
    ///   - arguments: the arguments after the program name.
    ///   - environment: the child's whole environment; `nil` for this process's.
    ///   - pipeInput: whether the test writes the child's standard input (else it reads /dev/null).
    ///   - standardOutput: where its standard output goes.
    ///   - standardError: where its standard error goes; `.pipe` shares the standard output's pipe.
    /// - Throws: `ChildProcessError` when a pipe, a file or the spawn fails.
    public init(
        _ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil,
        pipeInput: Bool = false, standardOutput: Output = .discard, standardError: Output = .discard
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Descriptors the parent closes once the child has its copies.
        var childEnds: [Int32] = []
        defer { for descriptor in childEnds { close(descriptor) } }
        var input: FileHandle?
        var output: FileHandle?

        if pipeInput {
            // A child that exits before reading all its input must make the write fail, not kill the tests.
            Self.ignoreBrokenPipes
            let (read, write) = try Self.makePipe()
            childEnds.append(read)
            input = FileHandle(fileDescriptor: write, closeOnDealloc: true)
            posix_spawn_file_actions_adddup2(&actions, read, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        var outputPipe: Int32?
        for (target, destination) in [(Int32(1), standardOutput), (Int32(2), standardError)] {
            switch destination {
            case .discard:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
            case .file(let path):
                posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
            case .pipe:
                if outputPipe == nil {
                    let (read, write) = try Self.makePipe()
                    childEnds.append(write)
                    output = FileHandle(fileDescriptor: read, closeOnDealloc: true)
                    outputPipe = write
                }
                posix_spawn_file_actions_adddup2(&actions, outputPipe!, target)
            }
        }
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigfillset(&defaults)
        sigdelset(&defaults, SIGKILL)
        sigdelset(&defaults, SIGSTOP)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let environment = environment ?? ProcessInfo.processInfo.environment
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else { throw ChildProcessError(operation: "posix_spawn \(executable)", code: result) }
        processIdentifier = pid
        self.input = input
        self.output = output
    }

    /// Whether the child has not ended yet (reaps it when it has).
    public var isRunning: Bool { reap(blocking: false) == nil }

    /// Sends SIGTERM.
    public func terminate() { send(SIGTERM) }

    /// Sends `signal`, unless the child has already been reaped (its PID may belong to another process).
    /// - Parameter signal: the signal number.
    public func send(_ signal: Int32) {
        waitStatus.withLock { status in
            if status == nil { _ = kill(processIdentifier, signal) }
        }
    }

    /// Blocks until the child has ended.
    public func waitUntilExit() { _ = reap(blocking: true) }

    /// The exit status, or the number of the signal that ended the child; waits for the end.
    public var terminationStatus: Int32 {
        let status = reap(blocking: true) ?? 0
        return exited(status) ? (status >> 8) & 0xFF : status & 0x7F
    }

    /// How the child ended; waits for the end.
    public var terminationReason: TerminationReason {
        exited(reap(blocking: true) ?? 0) ? .exit : .uncaughtSignal
    }

    /// Writes `input` (when the standard input is a pipe, then closes it), reads the standard output to
    /// its end (when it is a pipe) and waits for the exit.
    /// - Parameter input: bytes for the child's standard input.
    /// - Returns: the exit status (or signal number) and the output.
    public func communicate(_ input: [UInt8] = []) -> (status: Int32, output: [UInt8]) {
        // A thread writes, so that a child that answers before it has read everything cannot stall both.
        let written = DispatchSemaphore(value: 0)
        if let handle = self.input {
            Thread.detachNewThread {
                try? handle.write(contentsOf: input)
                try? handle.close()
                written.signal()
            }
        } else {
            written.signal()
        }
        let bytes = output.map { Array($0.readDataToEndOfFile()) } ?? []
        written.wait()
        return (terminationStatus, bytes)
    }

    /// The wait status once the child has ended, reaping it the first time; `nil` while it runs.
    private func reap(blocking: Bool) -> Int32? {
        while true {
            let done: Int32? = waitStatus.withLock { status in
                if let status { return status }
                var raw: Int32 = 0
                let result = waitpid(processIdentifier, &raw, WNOHANG)
                if result == processIdentifier {
                    status = raw
                    return raw
                }
                // ECHILD would mean something else reaped it: a broken harness, not a test result.
                precondition(result >= 0 || errno == EINTR, "waitpid(\(processIdentifier)): errno \(errno)")
                return nil
            }
            if let done { return done }
            guard blocking else { return nil }
            usleep(2_000)
        }
    }

    private func exited(_ status: Int32) -> Bool { status & 0x7F == 0 }

    /// SIGPIPE ignored in the test process, once: a write to a pipe nobody reads then fails with EPIPE.
    private static let ignoreBrokenPipes: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    private static func makePipe() throws -> (read: Int32, write: Int32) {
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else { throw ChildProcessError(operation: "pipe", code: errno) }
        // Close-on-exec for anything else the test process runs; children spawned here close every
        // descriptor above 2 anyway.
        for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        return (descriptors[0], descriptors[1])
    }
}

/// A child process could not be started.
public struct ChildProcessError: Error, CustomStringConvertible {
    /// The call that failed.
    public let operation: String
    /// Its error number.
    public let code: Int32

    public var description: String { "\(operation): \(String(cString: strerror(code)))" }
}
