import HTTPCore
import Synchronization

/// One caller's view of a shared fetch's body: a pull source with its own offset into the
/// `InFlightBody`, so every caller gets the same bytes from the first one, as they arrive.
///
/// `cancel()` (the caller went away, or a HEAD answer needs no body) only forgets this reader; the
/// fetch goes on for the others and for the store.
final class InFlightBodySource: HTTPBodySource {
    private let body: InFlightBody
    private let reader: Int
    private let cancelled = Atomic<Bool>(false)

    /// Reads a fetch's body from its first byte.
    /// - Parameters:
    ///   - body: the shared body.
    ///   - reader: the reader registered for this caller when it joined (`InFlightBody.addReader`).
    init(body: InFlightBody, reader: Int) {
        self.body = body
        self.reader = reader
    }

    func next(maxBytes: Int, deliver: @escaping @Sendable (HTTPBodyChunk) -> Void) {
        body.read(reader: reader, maxBytes: maxBytes) { [self] chunk in
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
        body.removeReader(reader)
    }
}
