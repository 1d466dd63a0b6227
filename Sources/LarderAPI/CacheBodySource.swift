public import CacheCore
public import HTTPCore
import Synchronization

/// Serves a stored body to the HTTP server: the pull-based `HTTPBodySource` over a `CacheBodyReader`,
/// whatever form the reader was opened in (identity, stored gzip, a byte range).
///
/// The next stored piece is read only when the server asks, on the storage executor, never on the
/// connection's queue. A piece larger than asked for is handed out in slices. A read error (a corrupt
/// chunk, which the store has already deleted, or an entry deleted mid-read) answers `.failure`, so the
/// server aborts the connection and the client cannot take a truncated body for a whole one.
/// `cancel()` releases the reader, also while a read is under way.
public final class CacheBodySource: HTTPBodySource {
    private struct State {
        var reader: (any CacheBodyReader)?
        /// What is left of the last piece read beyond what was asked for.
        var leftover: ArraySlice<UInt8> = []
        /// A read error met while gathering a piece, owed after the bytes read before it.
        var failure: (any Error)?
    }

    private let state: Mutex<State>
    private let executor: StorageExecutor
    private let onFailure: (@Sendable (any Error) -> Void)?

    /// The total number of bytes the source produces.
    public let length: Int

    /// Wraps a reader.
    /// - Parameters:
    ///   - reader: an open reader; the source owns it from now on.
    ///   - executor: where the blocking reads run.
    ///   - onFailure: told about a read error before the connection is aborted (for logs and metrics).
    public init(
        reader: any CacheBodyReader, executor: StorageExecutor, onFailure: (@Sendable (any Error) -> Void)? = nil
    ) {
        self.state = Mutex(State(reader: reader))
        self.executor = executor
        self.onFailure = onFailure
        self.length = reader.length
    }

    /// Reads the first piece now, on the caller's thread (already the storage executor's), so that the
    /// server's first pull is answered from memory: one queue hop less per response, which is most of the
    /// cost for a body of one chunk. A failure here happens before any byte is sent, so the caller can
    /// still answer with a clean error instead of an aborted connection.
    /// - Throws: what the reader throws; the source is released then.
    public func prefetch() throws {
        guard let reader = state.withLock({ $0.reader }) else { return }
        let piece: [UInt8]?
        do {
            piece = try reader.next()
        } catch {
            cancel()
            throw error
        }
        state.withLock { state in
            guard state.reader != nil, state.leftover.isEmpty else { return }
            if let piece {
                state.leftover = piece[...]
            } else {
                state.reader = nil
            }
        }
    }

    /// Delivers up to `maxBytes` bytes: what is left of the last piece, or the reader's next piece.
    public func next(maxBytes: Int, deliver: @escaping @Sendable (HTTPBodyChunk) -> Void) {
        let limit = max(1, maxBytes)
        let ready: HTTPBodyChunk? = state.withLock { state in
            if !state.leftover.isEmpty { return .bytes(Self.take(limit, from: &state.leftover)) }
            guard let failure = state.failure else { return nil }
            state.failure = nil
            return .failure(failure)
        }
        if let ready {
            if case .failure(let error) = ready { onFailure?(error) }
            deliver(ready)
            return
        }
        executor.submit { [self] in
            // The reader is used outside the lock, so that `cancel()` from a connection queue never
            // waits for a disk read.
            guard let reader = state.withLock({ $0.reader }) else {
                deliver(.end)
                return
            }
            let piece: [UInt8]?
            do {
                piece = try reader.next()
            } catch {
                state.withLock { $0 = State() }
                onFailure?(error)
                deliver(.failure(error))
                return
            }
            guard let piece else {
                state.withLock { $0 = State() }
                deliver(.end)
                return
            }
            // Stored chunks are smaller than what the server asks for at once: gather several per pull,
            // so a large body costs one executor hop per `maxBytes`, not one per chunk.
            var out = piece
            var rest: ArraySlice<UInt8> = []
            do {
                while out.count < limit, let more = try reader.next() {
                    let room = limit - out.count
                    guard more.count > room else {
                        out.append(contentsOf: more)
                        continue
                    }
                    out.append(contentsOf: more[..<room])
                    rest = more[room...]
                    break
                }
            } catch {
                // The bytes before the bad chunk go out first (they were checked); the failure answers
                // the next pull. The reader is released now.
                state.withLock { $0 = State(failure: error) }
                deliver(.bytes(out))
                return
            }
            if out.count > limit {
                var slice = out[...]
                out = Self.take(limit, from: &slice)
                rest = slice
            }
            if !rest.isEmpty {
                // Keep the rest only while the source is alive; after `cancel()` nobody will ask.
                state.withLock { state in if state.reader != nil { state.leftover = rest } }
            }
            deliver(.bytes(out))
        }
    }

    /// Releases the reader and any bytes held.
    public func cancel() {
        state.withLock { $0 = State() }
    }

    private static func take(_ count: Int, from slice: inout ArraySlice<UInt8>) -> [UInt8] {
        let end = slice.index(slice.startIndex, offsetBy: min(count, slice.count))
        let taken = Array(slice[..<end])
        slice = slice[end...]
        return taken
    }
}
