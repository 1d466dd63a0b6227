import CacheCore
import HTTPCore
import Synchronization
import Upstream

/// What `InFlightBody` pauses when its consumers fall behind: the origin transfer (`OriginFetch`).
protocol InFlightTransfer: AnyObject, Sendable {
    /// Stops reading from the origin.
    func pause()
    /// Reads from the origin again.
    func resume()
}

extension OriginFetch: InFlightTransfer {}

/// The body of one origin fetch as it arrives, shared by the callers that relay it and the writer that
/// stores it, each reading at its own offset.
///
/// Memory is bounded by the consumers, not by the object's size. A body being stored is written chunk
/// by chunk as it arrives and let go from memory once written: a caller behind it (late, or slow) reads
/// it back from the store (`ReadableBodyWriter`) and then the rest from memory, so only the store's pace
/// holds the origin back. A body that is not stored (or a store that cannot read back) is let go as its
/// slowest caller passes it, and past its share of the `InFlightBudget` the origin transfer pauses until
/// that caller catches up; it keeps its first bytes while they fit in `InFlightBudget.floor`, and once
/// it lets them go it takes no new callers (`onSealed`): they start a fetch of their own.
///
/// Who may join is the store's verdict (`StoreSide`, the rule in `addReader`): anyone before the head is
/// judged, callers of a response being stored, nobody once the response will not be stored or is
/// committed. The fetch leaves its registry key (`onSealed`) as soon as it is known not to be stored, so a
/// caller who comes after a not-stored body ended, before the fetch is done with the store, starts its own
/// fetch.
///
/// A caller behind memory when storing stops part way (a body without `Content-Length` that outgrows
/// the filter's `maxBytes`, a failing disk) can no longer catch up: it gets a failure, which aborts its
/// connection, never a short body presented as whole.
///
/// Rules, applied on each event:
/// - a reader behind the held bytes reads from the store, and holds nothing in memory;
/// - the held bytes start where the store can no longer give them back (stored body), or at the slowest
///   reader and the store writer (otherwise);
/// - an image held for validation (`holdsWhole`) keeps every byte until it is released;
/// - the origin pauses when `InFlightBudget.mustPause` and resumes when `mayResume`.
final class InFlightBody: Sendable {
    typealias Deliver = @Sendable (HTTPBodyChunk) -> Void

    /// Why a caller's body cannot be completed.
    enum Failure: Error, CustomStringConvertible {
        /// The caller is behind the bytes held in memory and the store no longer has them.
        case prefixGone

        var description: String { "the start of the body is no longer held (storing stopped)" }
    }

    private struct Pull {
        let maxBytes: Int
        let deliver: Deliver
    }

    private struct Reader {
        var offset = 0
        var pull: Pull?
    }

    private struct State {
        var pieces = InFlightPieces()
        var finished: Result<Void, OriginError>?
        var readers: [Int: Reader] = [:]
        var nextReader = 0
        var store = StoreSide.undecided
        /// Told once the store's verdict is final (`stored` or `notStored`).
        var onVerdict: [@Sendable () -> Void] = []
        /// A store drain is queued or running (`takeForStore` until it returns `nil`).
        var draining = false
        var holdsWhole = false
        var joinable = true
        var paused = false
        var transfer: (any InFlightTransfer)?
    }

    /// What an event asks of the world outside the lock.
    private struct Effects {
        var deliveries: [(Deliver, HTTPBodyChunk)] = []
        var pause: (any InFlightTransfer)?
        var resume: (any InFlightTransfer)?
        var sealed = false
        var verdict: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())
    private let budget: InFlightBudget
    private let executor: StorageExecutor
    private let onSealed: @Sendable () -> Void

    /// - Parameters:
    ///   - budget: the memory all fetches share.
    ///   - executor: where read-backs from the store run.
    ///   - onSealed: told once when the fetch stops taking new callers and must leave its registry key (its
    ///     first bytes let go, or its response will not be stored).
    init(budget: InFlightBudget, executor: StorageExecutor, onSealed: @escaping @Sendable () -> Void) {
        self.budget = budget
        self.executor = executor
        self.onSealed = onSealed
    }

    deinit {
        budget.give(state.withLock { $0.pieces.count })
    }

    /// Bytes received so far.
    var received: Int { state.withLock { $0.pieces.end } }

    /// Bytes held in memory now.
    var held: Int { state.withLock { $0.pieces.count } }

    /// Whether the origin transfer is paused for the consumers to catch up.
    var isPaused: Bool { state.withLock { $0.paused } }

    /// The transfer to pause and resume.
    func attach(_ transfer: any InFlightTransfer) {
        state.withLock { $0.transfer = transfer }
    }

    // MARK: Readers (callers)

    /// Registers a reader from the first byte, when the fetch still takes callers: before its head is judged
    /// (request collapsing: the caller is answered by RFC 9111 §4's rule once the head is known, in
    /// `FetchHandler`), and while its response is being stored, as long as the first bytes are held or can
    /// be read back. Never once the response will not be stored (a response that is not stored answers only
    /// the requests it was fetched for, RFC 9111 §3, §4), nor once it is stored (the store answers, or
    /// revalidates it, from then on). `joinable` says which: every step to `.notStored` or `.stored` clears it.
    /// - Returns: its number, or `nil` when the fetch takes no new callers.
    func addReader() -> Int? {
        state.withLock { state in
            guard state.joinable else { return nil }
            let reader = state.nextReader
            state.nextReader += 1
            state.readers[reader] = Reader()
            return reader
        }
    }

    /// The next piece for a reader: at once when there are bytes past its offset (from memory, or read
    /// back from the store on the executor when it is behind), else when they arrive.
    func read(reader id: Int, maxBytes: Int, deliver: @escaping Deliver) {
        enum Next {
            case now(HTTPBodyChunk)
            case later
            case readBack(offset: Int, from: @Sendable (Int) throws -> [UInt8])
        }
        var effects = Effects()
        let next = state.withLock { state -> Next in
            guard var reader = state.readers[id] else { return .now(.end) }
            if reader.offset < state.pieces.base {
                guard let written = state.store.written, let readBack = written.readBack,
                    reader.offset < written.readable
                else {
                    return .now(.failure(Failure.prefixGone))
                }
                return .readBack(offset: reader.offset, from: readBack)
            }
            if reader.offset < state.pieces.end {
                let bytes = state.pieces.read(from: reader.offset, maxBytes: maxBytes)
                reader.offset += bytes.count
                state.readers[id] = reader
                settle(&state, &effects)
                return .now(.bytes(bytes))
            }
            switch state.finished {
            case .success?: return .now(.end)
            case .failure(let error)?: return .now(.failure(error))
            case nil:
                reader.pull = Pull(maxBytes: max(1, maxBytes), deliver: deliver)
                state.readers[id] = reader
                return .later
            }
        }
        perform(effects)
        switch next {
        case .now(let chunk): deliver(chunk)
        case .later: break
        case .readBack(let offset, let readBack):
            executor.submit { [self] in
                do {
                    var bytes = try readBack(offset)
                    if bytes.count > maxBytes { bytes = Array(bytes[..<max(1, maxBytes)]) }
                    state.withLock { state in
                        if state.readers[id]?.offset == offset { state.readers[id]?.offset += bytes.count }
                    }
                    deliver(.bytes(bytes))
                } catch {
                    deliver(.failure(error))
                }
            }
        }
    }

    /// Forgets a reader that is done or gone; the fetch goes on for the others.
    func removeReader(_ id: Int) {
        var effects = Effects()
        state.withLock { state in
            guard state.readers.removeValue(forKey: id) != nil else { return }
            settle(&state, &effects)
        }
        perform(effects)
    }

    // MARK: Origin side (the client's driver thread)

    /// Takes in the next piece from the origin and hands it to the readers waiting for bytes.
    /// - Parameters:
    ///   - bytes: the piece.
    ///   - transfer: the transfer it came from, to pause (it may deliver before `attach` is called).
    /// - Returns: whether a store drain must be queued (`takeForStore`).
    func append(_ bytes: [UInt8], from transfer: (any InFlightTransfer)? = nil) -> Bool {
        var effects = Effects()
        let drain = state.withLock { state -> Bool in
            guard state.finished == nil else { return false }
            if let transfer, state.transfer == nil { state.transfer = transfer }
            let offset = state.pieces.end
            state.pieces.append(bytes)
            budget.take(bytes.count)
            for (id, reader) in state.readers {
                guard let pull = reader.pull, reader.offset == offset else { continue }
                let piece = state.pieces.read(from: offset, maxBytes: pull.maxBytes)
                state.readers[id] = Reader(offset: offset + piece.count, pull: nil)
                effects.deliveries.append((pull.deliver, .bytes(piece)))
            }
            settle(&state, &effects)
            switch state.store {
            case .opening, .writing:
                guard !state.draining else { return false }
                state.draining = true
                return true
            case .undecided, .notStored, .stored:
                return false
            }
        }
        perform(effects)
        return drain
    }

    /// The body ended (complete, or failed): readers waiting for bytes get the end or the failure.
    func finish(_ result: Result<Void, OriginError>) {
        var effects = Effects()
        state.withLock { state in
            guard state.finished == nil else { return }
            state.finished = result
            let chunk: HTTPBodyChunk
            switch result {
            case .success: chunk = .end
            case .failure(let error): chunk = .failure(error)
            }
            for (id, reader) in state.readers {
                guard let pull = reader.pull else { continue }
                state.readers[id]?.pull = nil
                effects.deliveries.append((pull.deliver, chunk))
            }
            settle(&state, &effects)
        }
        perform(effects)
    }

    // MARK: Store side (the fetch's store queue)

    /// The body is to be stored (its head was admitted): nothing is let go until the writer is open.
    func storeOpening() {
        state.withLock { $0.store = .opening }
    }

    /// The writer is open.
    /// - Parameter writer: the writer; when it can read back, late callers read the written prefix from it.
    func storeOpened(_ writer: any CacheBodyWriter) {
        var readBack: (@Sendable (Int) throws -> [UInt8])?
        if let readable = writer as? any ReadableBodyWriter {
            readBack = { offset in try readable.readWritten(at: offset) }
        }
        var effects = Effects()
        state.withLock { state in
            guard case .opening = state.store else { return }
            state.store = .writing(Written(taken: 0, readable: 0, readBack: readBack))
            settle(&state, &effects)
        }
        perform(effects)
    }

    /// The next bytes for the store writer, or `nil` when it has taken all that arrived (the drain is then
    /// over; the next `append` asks for another).
    func takeForStore(maxBytes: Int) -> [UInt8]? {
        state.withLock { state in
            guard case .writing(var written) = state.store, written.taken < state.pieces.end else {
                state.draining = false
                return nil
            }
            let bytes = state.pieces.read(from: written.taken, maxBytes: maxBytes)
            written.taken += bytes.count
            state.store = .writing(written)
            return bytes
        }
    }

    /// The writer wrote what it took; `readable` bytes can now be read back.
    func stored(readable: Int) {
        var effects = Effects()
        state.withLock { state in
            guard case .writing(var written) = state.store else { return }
            written.readable = readable
            state.store = .writing(written)
            settle(&state, &effects)
        }
        perform(effects)
    }

    /// The body is committed: the fetch takes no new callers, and those waiting for the verdict are told.
    /// It keeps its registry key until it leaves: a caller who finds it there is sent back to the store
    /// (`FetchHandler.fetchFromOrigin`) rather than to the origin.
    func storeCommitted() {
        var effects = Effects()
        state.withLock { state in
            guard case .writing(let written) = state.store else { return }
            state.store = .stored(written)
            state.joinable = false
            Self.tellVerdict(&state, &effects)
            settle(&state, &effects)
        }
        perform(effects)
    }

    /// The response is not stored: refused on its head, or storing stopped part way (refused, abandoned,
    /// failed). The fetch takes no new callers, the writer no longer holds bytes back, and a reader behind
    /// memory can no longer catch up.
    func storeStopped() {
        var effects = Effects()
        state.withLock { state in
            if case .stored = state.store { return }
            state.store = .notStored
            state.draining = false
            if state.joinable {
                // No caller may join from now on: the fetch leaves its key at once.
                state.joinable = false
                effects.sealed = true
            }
            Self.tellVerdict(&state, &effects)
            settle(&state, &effects)
        }
        perform(effects)
    }

    /// Runs `action` once the store's verdict is final (committed, or not stored), at once if it is.
    func whenStoreDecided(_ action: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            switch state.store {
            case .stored, .notStored: return true
            case .undecided, .opening, .writing:
                state.onVerdict.append(action)
                return false
            }
        }
        if now { action() }
    }

    /// Whether the body is committed to the store.
    var isStored: Bool {
        state.withLock { state in
            if case .stored = state.store { return true }
            return false
        }
    }

    /// The verdict is final: those waiting for it are told.
    private static func tellVerdict(_ state: inout State, _ effects: inout Effects) {
        effects.verdict = state.onVerdict
        state.onVerdict = []
    }

    // MARK: Holding an image whole

    /// Keeps every byte until `releaseWhole()`: the image validator reads the body whole.
    func holdWhole() {
        state.withLock { $0.holdsWhole = true }
    }

    /// Whether a held body outgrew what one fetch may hold (it is then released unvalidated).
    var outgrewHold: Bool { state.withLock { $0.holdsWhole && $0.pieces.count > budget.perFetch } }

    /// The whole body, when it is held whole.
    var whole: [UInt8]? { state.withLock { $0.pieces.whole } }

    /// Lets the body be read and let go as any other.
    func releaseWhole() {
        var effects = Effects()
        state.withLock { state in
            state.holdsWhole = false
            settle(&state, &effects)
        }
        perform(effects)
    }

    // MARK: The rules

    /// Lets go of what no consumer needs, and pauses or resumes the origin (the rules in the type's
    /// documentation).
    private func settle(_ state: inout State, _ effects: inout Effects) {
        if !state.holdsWhole {
            letGo(&state, &effects)
        }
        guard let transfer = state.transfer, state.finished == nil else { return }
        let count = state.pieces.count
        if !state.paused, !state.holdsWhole, budget.mustPause(holding: count) {
            state.paused = true
            effects.pause = transfer
        } else if state.paused, budget.mayResume(holding: count) {
            state.paused = false
            effects.resume = transfer
        }
    }

    private func letGo(_ state: inout State, _ effects: inout Effects) {
        let base = state.pieces.base
        var floor = state.pieces.end
        var keepsPrefix = false
        switch state.store {
        case .opening:
            return
        case .writing(let written), .stored(let written):
            if written.readBack != nil {
                // Whatever is written can be read back: a caller behind it reads from the store, so memory
                // holds only what the store cannot give back yet, and a slow caller never slows the origin.
                floor = min(written.taken, max(written.readable, base))
                keepsPrefix = true
            } else {
                floor = min(written.taken, Self.slowestReader(state, from: base))
            }
        case .undecided, .notStored:
            floor = Self.slowestReader(state, from: base)
        }
        guard floor > base else { return }
        if !keepsPrefix, state.joinable {
            // Letting the first bytes go shuts out late callers: only once they do not fit the floor.
            guard state.pieces.count > budget.floor else { return }
            state.joinable = false
            effects.sealed = true
        }
        budget.give(state.pieces.release(upTo: floor))
    }

    /// The offset of the slowest reader reading from memory (the end when there is none).
    private static func slowestReader(_ state: State, from base: Int) -> Int {
        var slowest = state.pieces.end
        for reader in state.readers.values where reader.offset >= base { slowest = min(slowest, reader.offset) }
        return slowest
    }

    private func perform(_ effects: Effects) {
        effects.pause?.pause()
        effects.resume?.resume()
        // Sealed before the verdict's waiters run: one that goes back to the registry must not find this fetch.
        if effects.sealed { onSealed() }
        for action in effects.verdict { action() }
        for (deliver, chunk) in effects.deliveries { deliver(chunk) }
    }
}
