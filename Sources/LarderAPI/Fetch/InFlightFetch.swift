import CacheCore
import CachePolicy
import Dispatch
import Foundation
import HTTPCore
import ImageSniffing
import Synchronization
import Upstream

/// One origin fetch shared by every caller that missed on the same key (coalescing), and the writer
/// that stores its response.
///
/// The body is shared through `InFlightBody`: each caller reads it through its own `InFlightBodySource`
/// at its own offset, the store writer drains it as it arrives (`drainStore`), and memory holds only
/// what a consumer still needs, within the service's `InFlightBudget` (the origin pauses past it).
///
/// Origin callbacks arrive on the origin client's driver thread and only touch memory; every store call
/// runs on `storeQueue`, in arrival order: one serial queue of the service's few store writers (a queue
/// per fetch would let Dispatch start a thread per fetch blocked on SQLite's one writer; a burst of 32
/// concurrent misses ran 100 threads).
final class InFlightFetch: OriginFetchDelegate, Sendable {
    /// A caller waiting for the outcome.
    typealias Waiter = @Sendable (InFlightOutcome) -> Void

    /// A caller waiting for the outcome, and when it stops waiting (uptime nanoseconds).
    struct Waiting {
        let deadline: UInt64
        let waiter: Waiter
    }

    struct State {
        var outcome: InFlightOutcome?
        var waiters: [Waiting] = []
        /// Fires at the earliest waiter's deadline while the outcome is unknown; cancelled once it is known,
        /// so that a waiter is released with its answer and not kept until its deadline.
        var waitTimer: (any DispatchSourceTimer)?
        var joined = 0
        /// The origin finished (or a revalidation was answered): no more bytes come.
        var finished = false
        var head: OriginResponseHead?
        var storing = false
        var refusal: String?
        var invalidImage = false
        var holdUntilComplete = false
        /// The head's outcome is known but its waiters are told with the first body bytes, or at the end of
        /// the read that brought the head.
        var announcePending = false
        /// Bytes this fetch added to the service's store backlog.
        var backlogBytes = 0
        var originFetch: OriginFetch?
        var responseTime = Date()
    }

    /// A number for `/fetches`.
    let id: Int
    /// The key callers coalesce on (primary, or secondary when the store knew the `Vary` names).
    let key: CacheKey
    /// The URL fetched.
    let url: String
    /// The canonical URL keys are computed from.
    let keyURL: String
    /// The owning filter's decision.
    let decision: FilterDecision
    /// The stored entry this fetch revalidates, if any.
    let stored: StoredEntry?
    /// The headers of the caller that started the fetch (they pick the `Vary` variant stored).
    let requestHeaders: HTTPHeaders
    /// Whether the response may be stored at all (`false` for bypass).
    let mayStore: Bool
    /// When the fetch started.
    let startedAt: Date
    /// The same on the monotonic clock, for the latency metric (the injected clock may stand still).
    let startedUptime = DispatchTime.now().uptimeNanoseconds
    let requestTime: Date
    let service: FetchService
    let state = Mutex(State())
    /// The response body, as it arrives, for the callers and the store writer.
    let body: InFlightBody
    let storeQueue: DispatchQueue
    let writerBox: InFlightWriterBox

    init(
        id: Int, key: CacheKey, url: String, keyURL: String, decision: FilterDecision, stored: StoredEntry?,
        requestHeaders: HTTPHeaders, mayStore: Bool, service: FetchService
    ) {
        self.id = id
        self.key = key
        self.url = url
        self.keyURL = keyURL
        self.decision = decision
        self.stored = stored
        self.requestHeaders = requestHeaders
        self.mayStore = mayStore
        self.service = service
        startedAt = service.clock()
        requestTime = startedAt
        storeQueue = service.storeWriters.queueInTurn()
        writerBox = InFlightWriterBox(queue: storeQueue)
        let registry = service.registry
        body = InFlightBody(budget: service.inFlightBudget, executor: service.executor) {
            registry.seal(key: key, id: id)
        }
    }

    /// Sends the request to the origin, conditional on the stored entry's validators when there is one.
    /// - Parameters:
    ///   - conditionalHeaders: `If-None-Match` / `If-Modified-Since` for a revalidation.
    ///   - method: GET, or HEAD for a bypassed HEAD request (a stored fetch always GETs the body).
    func start(conditionalHeaders: HTTPHeaders, method: OriginRequest.Method = .get) {
        var headers = requestHeaders
        if mayStore {
            // The fetch is shared and its answer stored: the caller's own conditionals and ranges are
            // answered by Larder from the full response, never forwarded.
            headers.remove(names: Self.callerOnlyFields)
            // Asked in the terms a `Vary: Accept-Encoding` variant is keyed by, so that the stored answer
            // suits every caller of the class (a `br` answer to `gzip, br` would not suit `gzip` alone).
            headers.replaceOrAdd(
                name: "Accept-Encoding", value: EncodingVariant(requestHeaders: requestHeaders).acceptEncodingField)
            for field in conditionalHeaders { headers.add(name: field.name, value: field.value) }
        }
        let request = OriginRequest(method: mayStore ? .get : method, url: url, headers: headers)
        let fetch = service.client.fetch(request, delegate: self)
        body.attach(fetch)
        state.withLock { $0.originFetch = fetch }
    }

    /// Bytes counted against the store backlog for each fetch being stored, on top of its body: 7 245
    /// waiting 1 KiB fetches held about 70 MiB.
    static let backlogOverhead = 10 << 10

    static let callerOnlyFields = [
        "If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range", "Range",
    ]

    /// Adds a caller; it is told the outcome once (at once if known), or `.waitExpired` when no outcome
    /// came within the service's `waiterTimeout` from now.
    /// - Parameter waiter: receives the outcome.
    /// - Returns: `false` when the fetch already has `maxWaiters` callers.
    func join(_ waiter: @escaping Waiter) -> Bool {
        let deadline = DispatchTime.now().uptimeNanoseconds &+ Self.nanoseconds(service.configuration.waiterTimeout)
        let known: InFlightOutcome?? = state.withLock { state in
            guard state.joined < service.configuration.maxWaiters else { return .none }
            state.joined += 1
            if let outcome = state.outcome { return .some(outcome) }
            state.waiters.append(Waiting(deadline: deadline, waiter: waiter))
            if state.waitTimer == nil {
                // One timer per fetch, not one per caller: a per-caller timer held the caller (and its
                // connection) for the whole timeout, long after the answer; under a flood of misses that
                // was hundreds of thousands of closures.
                let timer = DispatchSource.makeTimerSource(queue: .global())
                timer.setEventHandler { [weak self] in self?.expireWaiters() }
                timer.schedule(deadline: DispatchTime(uptimeNanoseconds: deadline))
                timer.activate()
                state.waitTimer = timer
            }
            return .some(nil)
        }
        switch known {
        case .none: return false
        case .some(.some(let outcome)): waiter(outcome)
        case .some(.none): break
        }
        return true
    }

    /// Tells the callers whose deadline passed that the wait expired, and re-arms the timer for the others.
    private func expireWaiters() {
        let now = DispatchTime.now().uptimeNanoseconds
        let expired = state.withLock { state -> [Waiter] in
            guard state.outcome == nil else { return [] }
            let expired = state.waiters.filter { $0.deadline <= now }.map(\.waiter)
            state.waiters.removeAll { $0.deadline <= now }
            if let next = state.waiters.map(\.deadline).min() {
                state.waitTimer?.schedule(deadline: DispatchTime(uptimeNanoseconds: next))
            } else {
                state.waitTimer?.cancel()
                state.waitTimer = nil
            }
            return expired
        }
        for waiter in expired { waiter(.waitExpired) }
    }

    /// Every waiter, taken to be told the outcome; the deadline timer goes with them.
    static func takeWaiters(_ state: inout State) -> [Waiter] {
        state.waitTimer?.cancel()
        state.waitTimer = nil
        defer { state.waiters = [] }
        return state.waiters.map(\.waiter)
    }

    /// A non-negative duration in nanoseconds, for deadlines on Dispatch's uptime clock.
    static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        return UInt64(max(0, seconds)) &* 1_000_000_000 &+ UInt64(max(0, attoseconds / 1_000_000_000))
    }

    /// A snapshot for `/fetches`.
    var snapshot: (bytesReceived: Int, bytesExpected: Int?, waiters: Int, status: Int?) {
        let (joined, fetch, head) = state.withLock { ($0.joined, $0.originFetch, $0.head) }
        let progress = fetch?.progress
        return (progress?.bytesReceived ?? body.received, progress?.bytesExpected, joined, head?.status)
    }

    /// Whether the origin's response head (other than a 304 to a revalidation) arrived: a failure after it
    /// is a broken exchange, not a disconnection (RFC 9111 §4.2.4).
    var receivedHead: Bool { state.withLock { $0.head != nil } }

    // MARK: Origin callbacks (driver thread)

    func fetch(_ fetch: OriginFetch, didReceiveHead head: OriginResponseHead) {
        let responseTime = service.clock()
        if head.status == 304, let stored {
            revalidate(stored, notModified: head, responseTime: responseTime)
            return
        }
        var admission =
            mayStore
            ? StoreAdmission.evaluate(
                status: head.status, responseHeaders: head.headers, requestHeaders: requestHeaders,
                decision: decision, revalidating: stored != nil)
            : .bypass
        let backlog = service.storeBacklog.load(ordering: .relaxed)
        if admission.stored, backlog >= service.configuration.storeBacklogBytes {
            admission = StoreAdmission(stored: false, refusal: "store backlog: \(backlog) bytes waiting to be written")
        }
        let hold = admission.stored && decision.validateImage
        if admission.stored { body.storeOpening() }
        if hold { body.holdWhole() }
        state.withLock { state in
            state.head = head
            state.responseTime = responseTime
            state.storing = admission.stored
            state.refusal = admission.refusal
            state.holdUntilComplete = hold
            if admission.stored {
                // What a fetch waiting to be written holds besides its body (its state, its writer's).
                state.backlogBytes += Self.backlogOverhead
                service.storeBacklog.add(Self.backlogOverhead, ordering: .relaxed)
            }
            if !hold {
                // Joiners from now on learn it at once; those waiting already once the bytes that came
                // with the head are in the buffer (the first `didReceive`), or at the end of this read
                // when none came (`fetchDidEndRead`): each caller's head and first bytes then leave in
                // one write. Not later: one read of a large body runs to 1.6 MiB (libcurl 7.88 reads up
                // to 100 buffers per transfer and round), and the head waiting for all of it put a
                // 4 MiB miss's first byte at 3.3–5.1 ms instead of 1.6–2.0 ms.
                state.outcome = .response(head, admission: admission)
                state.announcePending = true
            }
        }
        if admission.stored {
            var hints = CacheBodyHints(headers: head.headers)
            // The variant for identity callers of a response that varies on Accept-Encoding is read by
            // them alone: stored deflated, every one of its hits would inflate it (CacheBodyHints).
            if case .names(let names) = Vary.field(in: head.headers), names.contains("accept-encoding"),
                EncodingVariant(requestHeaders: requestHeaders) == .identity
            {
                hints.identityReadersOnly = true
            }
            storeQueue.async { [self, hints] in
                do {
                    let writer = try service.store.beginWrite(hints: hints)
                    writerBox.writer = writer
                    body.storeOpened(writer)
                } catch {
                    state.withLock {
                        $0.refusal = "store: \(error)"; $0.storing = false
                    }
                    body.storeStopped()
                    service.recordStoreFailure(url: url, error: error)
                }
            }
        }
    }

    func fetchDidEndRead(_ fetch: OriginFetch) { announceResponse() }

    /// Tells the callers who waited for the head (once: with the first body bytes, or after the read that
    /// brought the head).
    private func announceResponse() {
        let (waiters, outcome) = state.withLock { Self.takeAnnouncement(&$0) }
        if let outcome {
            for waiter in waiters { waiter(outcome) }
        }
    }

    /// The waiters to tell and what, when the head's announcement is still due (and clears it).
    private static func takeAnnouncement(_ state: inout State) -> ([Waiter], InFlightOutcome?) {
        guard state.announcePending, let outcome = state.outcome else { return ([], nil) }
        state.announcePending = false
        return (takeWaiters(&state), outcome)
    }

    func fetch(_ fetch: OriginFetch, didReceive bytes: [UInt8]) {
        guard state.withLock({ !$0.finished && $0.head != nil }) else { return }
        let drain = body.append(bytes, from: fetch)
        var announcement: ([Waiter], InFlightOutcome?) = ([], nil)
        let stop = state.withLock { state -> String? in
            announcement = Self.takeAnnouncement(&state)
            guard state.storing else { return nil }
            state.backlogBytes += bytes.count
            service.storeBacklog.add(bytes.count, ordering: .relaxed)
            var refusal: String?
            if let limit = decision.maxBytes, body.received > limit {
                refusal = StoreAdmission.byteLimitRefusal(limit)
            } else if body.outgrewHold {
                refusal = "an image larger than \(service.inFlightBudget.perFetch) bytes is not validated in memory"
            }
            if let refusal {
                state.storing = false
                state.refusal = refusal
            }
            return refusal
        }
        if let outcome = announcement.1 {
            for waiter in announcement.0 { waiter(outcome) }
        }
        if drain {
            storeQueue.async { [self] in drainStore() }
        }
        if stop != nil {
            // At once, not on the store queue: a held image is released to its callers right below, and
            // they must read it from memory, not from a written prefix about to be abandoned.
            body.storeStopped()
            storeQueue.async { [self] in
                writerBox.writer?.abandon()
                writerBox.writer = nil
            }
            releaseHeld()
        }
    }

    /// Hands the bytes that arrived to the store writer (on `storeQueue`), as long as it takes them.
    func drainStore() {
        while let bytes = body.takeForStore(maxBytes: Self.drainPiece) {
            guard let writer = writerBox.writer else {
                body.storeStopped()
                return
            }
            do {
                try writer.append(bytes)
            } catch {
                writerBox.writer = nil
                state.withLock {
                    $0.storing = false; $0.refusal = "store: \(error)"
                }
                body.storeStopped()
                service.recordStoreFailure(url: url, error: error)
                return
            }
            state.withLock { $0.backlogBytes -= bytes.count }
            service.storeBacklog.subtract(bytes.count, ordering: .relaxed)
            body.stored(readable: (writer as? any ReadableBodyWriter)?.readableBytes ?? 0)
        }
    }

    /// The most bytes handed to the writer at once: a few chunks, so that what it has written is let go
    /// from memory as it goes.
    static let drainPiece = 256 << 10

    func fetch(_ fetch: OriginFetch, didFinish result: Result<OriginFetchMetrics, OriginError>) {
        // A fetch that ends with the read that brought its head gets no `fetchDidEndRead`.
        announceResponse()
        var failure: OriginError?
        if case .failure(let error) = result { failure = error }
        service.metrics.originFetchFinished(
            error: failure, nanoseconds: DispatchTime.now().uptimeNanoseconds &- startedUptime)
        var waiters: [Waiter] = []
        let (storing, held, first) = state.withLock { state -> (Bool, Bool, Bool) in
            guard !state.finished else { return (false, false, false) }
            state.finished = true
            if state.outcome == nil, let failure {
                // No head yet, or a held response that will never be complete: every caller gets the failure.
                state.outcome = .failure(failure)
                waiters = Self.takeWaiters(&state)
            }
            return (state.storing && failure == nil, state.outcome == nil, true)
        }
        guard first else { return }
        body.finish(failure.map { .failure($0) } ?? .success(()))
        if let failure {
            for waiter in waiters { waiter(.failure(failure)) }
        }
        storeQueue.async { [self] in
            if storing {
                drainStore()
                commit { [self] in finishStoring() }
            } else {
                if writerBox.writer != nil {
                    writerBox.writer?.abandon()
                    writerBox.writer = nil
                    body.storeStopped()
                }
                if held { releaseHeld() }
                finishStoring()
            }
        }
    }

    /// The store is done with this fetch (committed, refused or abandoned): its bytes leave the backlog
    /// and new callers no longer join it.
    private func finishStoring() {
        service.storeBacklog.subtract(state.withLock { $0.backlogBytes }, ordering: .relaxed)
        service.registry.remove(self)
    }
}
