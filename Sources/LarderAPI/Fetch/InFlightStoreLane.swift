import CacheCore
import Dispatch

/// Where one fetch's store calls run, in arrival order: a serial queue it shares with other fetches
/// (`StorageExecutor.queueInTurn`), and the fetch's body writer, which only blocks on that queue may touch.
final class InFlightStoreLane: @unchecked Sendable {
    // Guarded by `queue`: every access happens in a block on it, checked below.
    private var current: (any CacheBodyWriter)?
    private let queue: DispatchQueue

    init(queue: DispatchQueue) { self.queue = queue }

    /// Runs `work` on the lane, after every block given before it.
    func async(_ work: @escaping @Sendable () -> Void) { queue.async(execute: work) }

    /// The writer, while the body is being stored.
    var writer: (any CacheBodyWriter)? {
        get {
            dispatchPrecondition(condition: .onQueue(queue))
            return current
        }
        set {
            dispatchPrecondition(condition: .onQueue(queue))
            current = newValue
        }
    }

    /// Abandons the body being written, if any (nothing of it is committed).
    /// - Returns: whether there was one.
    @discardableResult
    func abandonWriter() -> Bool {
        guard let writer else { return false }
        writer.abandon()
        self.writer = nil
        return true
    }
}
