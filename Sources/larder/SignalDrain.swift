import Dispatch
import Glibc
import HTTPServer
import Logging

/// SIGTERM and SIGINT drain the server and exit 0; SIGPIPE is ignored (writes report EPIPE instead).
enum SignalDrain {
    /// Blocks SIGTERM and SIGINT in the calling thread; call it first in `serve`, before any thread exists,
    /// so that every thread inherits the mask.
    ///
    /// The sources below ignore the signals' default action (`SIG_IGN`), and Linux drops an ignored
    /// signal at once unless it is blocked: a SIGTERM sent right after "listening on", while the main
    /// thread had it unblocked, was lost and the process never drained. Blocked, it stays pending until
    /// Dispatch's signal source reads it (libdispatch takes it through a signalfd on Linux).
    static func blockDrainSignals() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Installs the signal sources on the main queue. They live for the rest of the process.
    /// - Parameters:
    ///   - server: the server to drain.
    ///   - grace: seconds requests in flight get.
    ///   - logger: where the drain is announced.
    ///   - finish: runs once the server has drained, before the exit (writes what is only in memory).
    static func install(
        server: HTTPServer, grace: Double, logger: Logger, finish: @escaping @Sendable () -> Void = {}
    ) {
        signal(SIGPIPE, SIG_IGN)
        for number in [SIGTERM, SIGINT] {
            // The default action would kill the process before the source could see the signal.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
            source.setEventHandler {
                logger.info("signal \(number): draining for up to \(grace) s")
                server.shutdown(grace: grace) {
                    finish()
                    logger.info("drained, exiting")
                    exit(0)
                }
            }
            source.activate()
            sources.append(source)
        }
    }

    // Only touched on the main thread, before dispatchMain.
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []
}
