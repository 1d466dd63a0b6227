public import Foundation
import Synchronization

/// One lock for every child process a test starts.
private let launchLock = Mutex(())

extension Process {
    /// `run()`, one launch at a time across the whole test process.
    ///
    /// Foundation's `Process.run()` is not safe to call from several threads at once on Linux: with the
    /// suites running in parallel, two launches at the same instant crashed the test process inside
    /// `run()` (a `memcpy` on a freed buffer). Launching is quick; the children still run side by side.
    /// `run()` also copies the environment, so a test that calls `setenv` must not run beside launches
    /// (`OriginClientEnvironmentTests` runs on its own).
    /// - Throws: what `run()` throws.
    public func runSerialized() throws {
        try launchLock.withLock { _ in try run() }
    }
}
