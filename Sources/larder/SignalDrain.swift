import Dispatch
import Glibc
import HTTPServer
import Logging

/// SIGTERM and SIGINT drain the server and exit 0; SIGHUP re-reads the key and token files
/// (`AccessReloader`); SIGPIPE is ignored (writes report EPIPE instead).
///
/// A signal handler writes the signal's number to a pipe, and a Dispatch read source on the main queue
/// reads it and starts the drain or the reload. Whatever thread the kernel picks to run the handler, and however early
/// the signal comes (the handler is installed first thing in `serve`), the number waits in the pipe until
/// the server exists. (Blocking the signals and ignoring them for a Dispatch signal source, as before,
/// lost a SIGTERM now and then: a thread that had them unblocked took the signal and its ignored
/// disposition discarded it. SIGHUP goes the same way: its default disposition ends the process, so it is
/// caught from the start too, and one that arrives before the server exists reloads once it does.)
enum SignalDrain {
    /// Installs the handler and opens the pipe; call it first in `serve`. Until `install` runs, a signal
    /// only leaves its number in the pipe.
    static func catchDrainSignals() {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { fatalError("pipe for the signal handler: errno \(errno)") }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        readEnd = fds[0]
        writeEnd = fds[1]
        for number in [SIGTERM, SIGINT, SIGHUP] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                // Async-signal-safe: one write(2) of one byte; a full pipe means a drain is already owed.
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(SignalDrain.writeEnd, &byte, 1)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(number, &action, nil)
        }
        signal(SIGPIPE, SIG_IGN)
    }

    /// Starts draining when SIGTERM's or SIGINT's number arrives in the pipe, and reloads when SIGHUP's
    /// does. The source lives for the rest of the process.
    /// - Parameters:
    ///   - server: the server to drain.
    ///   - grace: seconds requests in flight get.
    ///   - logger: where the drain is announced.
    ///   - reload: runs on the main queue for SIGHUP (once for several that arrived together), never once
    ///     a drain began.
    ///   - finish: runs once the server has drained, before the exit (writes what is only in memory).
    static func install(
        server: HTTPServer, grace: Double, logger: Logger, reload: @escaping @Sendable () -> Void = {},
        finish: @escaping @Sendable () -> Void = {}
    ) {
        let fd = readEnd
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: .main)
        source.setEventHandler {
            var byte: UInt8 = 0
            var hangUp = false
            var first: UInt8?
            while read(fd, &byte, 1) == 1 {
                if Int32(byte) == SIGHUP {
                    hangUp = true
                } else {
                    first = first ?? byte
                }
            }
            // The reload logs its outcome itself.
            if hangUp, !draining { reload() }
            guard let number = first, !draining else { return }
            draining = true
            logger.info("signal \(number): draining for up to \(grace) s")
            server.shutdown(grace: grace) {
                finish()
                logger.info("drained, exiting")
                exit(0)
            }
        }
        source.activate()
        self.source = source
    }

    // Set once by `catchDrainSignals` before any other thread reads them; the handler only reads.
    nonisolated(unsafe) private static var readEnd: Int32 = -1
    nonisolated(unsafe) private static var writeEnd: Int32 = -1
    // Only touched on the main queue.
    nonisolated(unsafe) private static var source: (any DispatchSourceRead)?
    nonisolated(unsafe) private static var draining = false
}
