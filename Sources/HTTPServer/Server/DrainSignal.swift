import Synchronization

/// Set once when the server starts draining; every connection reads it, so a response that begins after
/// the shutdown started says `Connection: close` even before the connection's own drain step has run.
final class DrainSignal: Sendable {
    private let flag = Atomic<Bool>(false)

    /// Whether shutdown has begun.
    var isDraining: Bool { flag.load(ordering: .acquiring) }

    /// Marks the start of shutdown.
    func begin() { flag.store(true, ordering: .releasing) }
}
