import HTTPCore
import Synchronization

/// One caller's view of a shared fetch's body: a pull source with its own offset into the fetch's
/// buffer, so every caller gets the same bytes from the first one, as they arrive.
///
/// `cancel()` (the caller went away, or a HEAD answer needs no body) only forgets this reader; the
/// fetch goes on for the others and for the store.
final class InFlightBodySource: HTTPBodySource {
    private let fetch: InFlightFetch
    private let reader: Int
    private let cancelled = Atomic<Bool>(false)

    /// Starts reading a fetch's body from its first byte.
    /// - Parameter fetch: the shared fetch.
    init(fetch: InFlightFetch) {
        self.fetch = fetch
        reader = fetch.addReader()
    }

    func next(maxBytes: Int, deliver: @escaping @Sendable (HTTPBodyChunk) -> Void) {
        fetch.read(reader: reader, maxBytes: maxBytes) { [self] chunk in
            switch chunk {
            case .bytes: break
            case .end, .failure: release()
            }
            deliver(chunk)
        }
    }

    func cancel() { release() }

    private func release() {
        guard cancelled.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        fetch.removeReader(reader)
    }
}
