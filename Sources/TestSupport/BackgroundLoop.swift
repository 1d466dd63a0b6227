import Foundation
import Synchronization

/// Runs a blocking step over and over on a thread of its own until stopped: writers that load a
/// server or a store while a test measures something else. A blocking loop on the cooperative pool
/// (two threads on a two-core machine) would stall every other test's timers.
public final class BackgroundLoop: Sendable {
    private let stopRequested = Atomic<Bool>(false)
    private let finished = Atomic<Bool>(false)
    private let completed = Atomic<Int>(0)

    /// Starts the loop.
    /// - Parameter step: one iteration, given its index; returns `false` to end the loop early.
    public init(_ step: @escaping @Sendable (Int) -> Bool) {
        Thread.detachNewThread { [self] in
            var index = 0
            while !stopRequested.load(ordering: .acquiring), step(index) {
                index += 1
                completed.store(index, ordering: .releasing)
            }
            finished.store(true, ordering: .releasing)
        }
    }

    /// Iterations completed so far.
    public var iterations: Int { completed.load(ordering: .acquiring) }

    /// Asks the loop to stop and waits (10 s at most) for the step in progress to end.
    /// - Returns: the iterations completed.
    @discardableResult
    public func stop() async -> Int {
        stopRequested.store(true, ordering: .releasing)
        _ = await waitUntil(timeout: .seconds(10)) { finished.load(ordering: .acquiring) }
        return iterations
    }
}
