import HTTPCore
import Synchronization

/// The shared body, read by each caller at its own offset.
extension InFlightFetch {
    /// Registers a reader of the shared body.
    /// - Returns: its number.
    func addReader() -> Int {
        state.withLock { state in
            let reader = state.nextReader
            state.nextReader += 1
            state.cursors[reader] = 0
            return reader
        }
    }

    /// The next piece for a reader: at once when the buffer holds bytes past its offset, else when they arrive.
    func read(reader: Int, maxBytes: Int, deliver: @escaping @Sendable (HTTPBodyChunk) -> Void) {
        let chunk: HTTPBodyChunk? = state.withLock { state in
            guard let offset = state.cursors[reader] else { return .end }
            if offset < state.buffer.count {
                let end = min(state.buffer.count, offset + max(1, maxBytes))
                state.cursors[reader] = end
                return .bytes(Array(state.buffer[offset..<end]))
            }
            switch state.end {
            case .some(.success): return .end
            case .some(.failure(let error)): return .failure(error)
            case .none:
                state.pulls[reader] = Pull(maxBytes: max(1, maxBytes), deliver: deliver)
                return nil
            }
        }
        if let chunk { deliver(chunk) }
    }

    /// Forgets a reader that is done or gone; the fetch goes on for the others.
    func removeReader(_ reader: Int) {
        state.withLock { state in
            state.cursors[reader] = nil
            state.pulls[reader] = nil
        }
    }
}
