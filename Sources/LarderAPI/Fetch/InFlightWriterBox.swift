import CacheCore
import Dispatch

/// The body writer of one fetch, confined to the serial queue its writes run on.
final class InFlightWriterBox: @unchecked Sendable {
    // Guarded by `queue` (InFlightFetch.storeQueue): every access happens in a block on it, checked below.
    private var stored: (any CacheBodyWriter)?
    private let queue: DispatchQueue

    init(queue: DispatchQueue) { self.queue = queue }

    /// The writer, while the body is being stored.
    var writer: (any CacheBodyWriter)? {
        get {
            dispatchPrecondition(condition: .onQueue(queue))
            return stored
        }
        set {
            dispatchPrecondition(condition: .onQueue(queue))
            stored = newValue
        }
    }
}
