import CacheCore
import CachePolicy
import Dispatch
import FoundationEssentials
import HTTPCore
import HTTPServer
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
/// runs on `storeLane`, in arrival order: one serial queue of the service's few store writers (a queue
/// per fetch would let Dispatch start a thread per fetch blocked on SQLite's one writer; a burst of 32
/// concurrent misses ran 100 threads).
final class InFlightFetch: OriginFetchDelegate, Sendable {
    struct State {
        /// The origin finished (or a revalidation was answered): no more bytes come.
        var finished = false
        var head: OriginResponseHead?
        /// The names the head's `Vary` lists, read once when it is judged storable (the entry's key and the
        /// store's hints both need them).
        var varyNames: [String] = []
        /// The head's RFC 9111 facts, read once when it is judged (admission, the body's hints and the
        /// recorded entry all read its `Cache-Control`); `nil` for a fetch that may not store.
        var facts: ResponseFacts?
        var storing = false
        var refusal: String?
        var invalidImage = false
        /// Bytes this fetch added to the service's store backlog: its body bytes not yet written, and the
        /// overhead of its place while it holds one.
        var backlogBytes = 0
        var place = BacklogPlace.none
        var originFetch: OriginFetch?
        var responseTime = Date()
    }

    /// A fetch's place in the store backlog. While it holds one (`reserved` or `taken`), `backlogBytes`
    /// counts `StoreBacklog.overheadPerFetch` for it: what a fetch waiting to be written holds besides its
    /// body (its state, its writer's).
    enum BacklogPlace {
        /// None: the fetch stores nothing, or it was sent without a place (it waited as long as it may)
        /// and its head has not been judged storable.
        case none
        /// Given by `StoreBacklog.reserve` before the request was sent.
        case reserved
        /// Taken when the head of a fetch sent without a place was judged storable, the backlog having room.
        case taken
    }

    /// A number for `/fetches`.
    let id: Int
    /// What the fetch asks for and on whose behalf.
    let order: FetchOrder
    /// When the fetch started, just before its request is sent: the stored response's request time
    /// (RFC 9111 §4.2.3), and the start `/fetches` shows.
    let requestTime: Date
    /// The same on the monotonic clock, for the latency metric (the injected clock may stand still).
    let startedUptime = DispatchTime.now().uptimeNanoseconds
    /// What the fetch works with (`FetchService.inFlight`).
    let dependencies: InFlightDependencies
    let state = Mutex(State())
    /// The callers waiting for the outcome.
    let waiters: InFlightWaiters
    /// The response body, as it arrives, for the callers and the store writer.
    let body: InFlightBody
    /// Where its store calls run, and its body writer.
    let storeLane: InFlightStoreLane
    /// Where the origin's interim responses (`103 Early Hints`, …) go: the caller who started the fetch, for
    /// whom the request was sent. Callers who join share only the final response; a background refresh
    /// relays none (`nil`).
    let interimRecipient: HTTPResponseWriter?
    /// The store's purge count before the request leaves: a purge after it that selects the entry makes
    /// it stale at its commit, even one that runs before the response head arrives.
    let purgesBefore: UInt64

    init(id: Int, order: FetchOrder, interimRecipient: HTTPResponseWriter?, dependencies: InFlightDependencies) {
        self.id = id
        self.order = order
        self.interimRecipient = interimRecipient
        self.dependencies = dependencies
        requestTime = dependencies.clock()
        storeLane = InFlightStoreLane(queue: dependencies.storeWriters.queueInTurn())
        purgesBefore = dependencies.store.purgeCount
        waiters = InFlightWaiters(limit: dependencies.configuration.maxWaiters, clock: dependencies.waiterClock)
        let registry = dependencies.registry
        body = InFlightBody(budget: dependencies.budget, executor: dependencies.executor) {
            registry.seal(key: order.key, id: id)
        }
    }

    /// Sends the request to the origin, conditional on the stored entry's validators when there is one.
    /// A fetch whose response may be stored is sent once it has its place in the store backlog (it waits
    /// while the store catches up, `StoreBacklog.reserve`); one that stores nothing at once.
    /// - Parameter conditionalHeaders: `If-None-Match` / `If-Modified-Since` for a revalidation.
    func start(conditionalHeaders: HTTPHeaders = HTTPHeaders()) {
        guard order.mayStore else { return send(conditionalHeaders: conditionalHeaders) }
        dependencies.backlog.reserve { [self] place in
            if case .reserved = place {
                state.withLock {
                    $0.place = .reserved
                    $0.backlogBytes += StoreBacklog.overheadPerFetch
                }
            }
            send(conditionalHeaders: conditionalHeaders)
        }
    }

    private func send(conditionalHeaders: HTTPHeaders) {
        var headers = order.requestHeaders
        if order.mayStore {
            // The fetch is shared and its answer stored: the caller's own conditionals and ranges are
            // answered by Larder from the full response, never forwarded.
            headers.remove(names: Self.callerOnlyFields)
            // Asked in the terms a `Vary: Accept-Encoding` variant is keyed by, so that the stored answer
            // suits every caller of the class (a `br` answer to `gzip, br` would not suit `gzip` alone).
            headers.replaceOrAdd(
                name: "Accept-Encoding",
                value: EncodingVariant(requestHeaders: order.requestHeaders).acceptEncodingField)
            for field in conditionalHeaders { headers.add(name: field.name, value: field.value) }
        }
        let request = OriginRequest(method: order.method, url: order.url, headers: headers, body: order.content)
        let fetch = dependencies.client.fetch(request, delegate: self)
        body.attach(fetch)
        state.withLock { $0.originFetch = fetch }
    }

    static let callerOnlyFields = [
        "If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range", "Range",
    ]

    /// Adds a caller (`InFlightWaiters.join`).
    /// - Returns: `false` when the fetch already has `maxWaiters` callers.
    func join(_ waiter: @escaping InFlightWaiters.Waiter) -> Bool { waiters.join(waiter) }

    /// A snapshot for `/fetches`.
    var snapshot: (bytesReceived: Int, bytesExpected: Int?, waiters: Int, status: Int?) {
        let (fetch, head) = state.withLock { ($0.originFetch, $0.head) }
        let progress = fetch?.progress
        return (progress?.bytesReceived ?? body.received, progress?.bytesExpected, waiters.joined, head?.status)
    }

    /// Whether a caller who joins after the response head arrived may be given the response without
    /// validating it, as a stored response would be judged for it (`ServePolicy`) at this moment.
    func reusableWithoutValidation(_ head: OriginResponseHead, by call: FetchHandler.Call) -> Bool {
        let received = state.withLock { $0.responseTime }
        let facts = ResponseFacts(
            status: head.status, headers: head.headers, requestTime: Int64(requestTime.timeIntervalSince1970),
            responseTime: Int64(received.timeIntervalSince1970),
            targets: dependencies.configuration.targetedCacheControl)
        switch ServePolicy.decide(
            stored: facts, requestMethod: call.method, requestHeaders: call.headers,
            now: Int64(dependencies.clock().timeIntervalSince1970), overrides: order.decision.overrides)
        {
        case .fresh, .staleAllowed: return true
        case .staleWhileRevalidate, .mustRevalidate, .mustFetch, .onlyIfCachedMiss: return false
        }
    }

    /// Whether the origin's response head (other than a 304 to a revalidation) arrived: a failure after it
    /// is a broken exchange, not a disconnection (RFC 9111 §4.2.4).
    var receivedHead: Bool { state.withLock { $0.head != nil } }

    // MARK: Origin callbacks (driver thread)

    /// Relays an interim response to the caller who started the fetch, its end-to-end fields only; it is
    /// never stored and never shown to another caller (RFC 9111 §3: only a final response is stored).
    func fetch(_ fetch: OriginFetch, didReceiveInterim head: OriginResponseHead) {
        guard let interimRecipient else { return }
        interimRecipient.sendInterim(
            HTTPResponse(status: HTTPStatus(code: head.status), headers: OriginHeaderForwarding.endToEnd(head.headers)))
    }

    func fetch(_ fetch: OriginFetch, didReceiveHead head: OriginResponseHead) {
        let responseTime = dependencies.clock()
        if head.status == 304, order.mayStore, let stored = order.stored {
            revalidate(stored, by: head, responseTime: responseTime)
            return
        }
        if case .forward(.head, _) = order.purpose, let stored = order.stored {
            // A forwarded HEAD's answer updates or invalidates the stored response it could have been
            // chosen for (RFC 9111 §4.3.5): a matching 200 freshens it as a 304 would.
            switch HeadUpdate.outcome(
                status: head.status, headers: head.headers, stored: stored.headers, storedLength: stored.originalSize)
            {
            case .update:
                revalidate(stored, by: head, responseTime: responseTime)
                return
            case .invalidate:
                return invalidateThenRelay(stored, head: head, responseTime: responseTime)
            case .none:
                break
            }
        }
        let facts =
            order.mayStore
            ? ResponseFacts(
                status: head.status, headers: head.headers, requestTime: Int64(requestTime.timeIntervalSince1970),
                responseTime: Int64(responseTime.timeIntervalSince1970),
                targets: dependencies.configuration.targetedCacheControl) : nil
        var admission =
            facts.map {
                StoreAdmission.evaluate(
                    facts: $0, requestHeaders: order.requestHeaders, decision: order.decision,
                    revalidating: order.stored != nil)
            } ?? .bypass
        let backlog = dependencies.backlog
        let varyNames = admission.stored ? Vary.names(in: head.headers) : []
        let placeFreed = state.withLock { state -> Bool in
            // A fetch sent without its place (it waited as long as it may) is stored only if there is room now.
            if admission.stored, state.place == .none, backlog.bytes >= backlog.limit {
                admission = StoreAdmission(
                    stored: false, refusal: "store backlog: \(backlog.bytes) bytes waiting to be written")
            }
            state.head = head
            state.varyNames = varyNames
            state.facts = facts
            state.responseTime = responseTime
            state.storing = admission.stored
            state.refusal = admission.refusal
            switch (admission.stored, state.place) {
            case (true, .none):
                state.place = .taken
                state.backlogBytes += StoreBacklog.overheadPerFetch
                backlog.add(StoreBacklog.overheadPerFetch)
            case (false, .reserved), (false, .taken):
                // Nothing will be written: the place goes to the next fetch waiting (below, outside the lock).
                state.place = .none
                state.backlogBytes -= StoreBacklog.overheadPerFetch
                return true
            case (true, .reserved), (true, .taken), (false, .none):
                break
            }
            return false
        }
        if placeFreed { backlog.subtract(StoreBacklog.overheadPerFetch) }
        let hold = admission.stored && order.decision.validateImage
        // Judged: a response that will not be stored takes no caller from now on, before anyone is told.
        if admission.stored { body.storeOpening() } else { body.storeStopped() }
        if hold { body.holdWhole() }
        if !hold {
            // Joiners from now on learn it at once; those waiting already once the bytes that came with the
            // head are in the body (the first `didReceive`), or at the end of this read when none came
            // (`fetchDidEndRead`): each caller's head and first bytes then leave in one write. Not later:
            // one read of a large body runs to 1.6 MiB (libcurl 7.88 reads up to 100 buffers per transfer
            // and round), and the head waiting for all of it put a 4 MiB miss's first byte at 3.3–5.1 ms
            // instead of 1.6–2.0 ms.
            waiters.settle(.response(head, admission: admission), tellingNow: false)
        }
        if admission.stored {
            // The governing directives are `Cache-Control`'s unless a targeted field (RFC 9213) replaced them.
            var hints = CacheBodyHints(
                headers: head.headers, cacheControl: facts?.targetedField == nil ? facts?.cacheControl : nil)
            hints.purgesBefore = purgesBefore
            // The variant for identity callers of a response that varies on Accept-Encoding is read by
            // them alone: stored deflated, every one of its hits would inflate it (CacheBodyHints).
            if varyNames.contains("accept-encoding"), EncodingVariant(requestHeaders: order.requestHeaders) == .identity
            {
                hints.identityReadersOnly = true
            }
            storeLane.async { [self, hints] in
                do {
                    let writer = try dependencies.store.beginWrite(hints: hints)
                    storeLane.writer = writer
                    body.storeOpened(writer)
                } catch {
                    state.withLock {
                        $0.refusal = "store: \(error)"; $0.storing = false
                    }
                    body.storeStopped()
                    dependencies.recordStoreFailure(url: order.url, error: error)
                }
            }
        }
    }

    func fetchDidEndRead(_ fetch: OriginFetch) { waiters.announce() }

    func fetch(_ fetch: OriginFetch, didReceive bytes: [UInt8]) {
        guard state.withLock({ !$0.finished && $0.head != nil }) else { return }
        let drain = body.append(bytes, from: fetch)
        waiters.announce()
        let stop = state.withLock { state -> String? in
            guard state.storing else { return nil }
            state.backlogBytes += bytes.count
            dependencies.backlog.add(bytes.count)
            var refusal: String?
            if let limit = order.decision.maxBytes, body.received > limit {
                refusal = StoreAdmission.byteLimitRefusal(limit)
            } else if body.outgrewHold {
                refusal = "an image larger than \(dependencies.budget.perFetch) bytes is not validated in memory"
            }
            if let refusal {
                state.storing = false
                state.refusal = refusal
            }
            return refusal
        }
        if drain {
            storeLane.async { [self] in drainStore() }
        }
        if stop != nil {
            // At once, not on the store queue: a held image is released to its callers right below, and
            // they must read it from memory, not from a written prefix about to be abandoned.
            body.storeStopped()
            storeLane.async { [self] in storeLane.abandonWriter() }
            releaseHeld()
        }
    }

    /// Hands the bytes that arrived to the store writer (on `storeLane`), as long as it takes them.
    func drainStore() {
        while let bytes = body.takeForStore(maxBytes: Self.drainPiece) {
            guard let writer = storeLane.writer else {
                body.storeStopped()
                return
            }
            do {
                try writer.append(bytes)
            } catch {
                storeLane.writer = nil
                state.withLock {
                    $0.storing = false; $0.refusal = "store: \(error)"
                }
                body.storeStopped()
                dependencies.recordStoreFailure(url: order.url, error: error)
                return
            }
            state.withLock { $0.backlogBytes -= bytes.count }
            dependencies.backlog.subtract(bytes.count)
            body.stored(readable: (writer as? any ReadableBodyWriter)?.readableBytes ?? 0)
        }
    }

    /// The most bytes handed to the writer at once: a few chunks, so that what it has written is let go
    /// from memory as it goes.
    static let drainPiece = 256 << 10

    func fetch(_ fetch: OriginFetch, didFinish result: Result<OriginFetchMetrics, OriginError>) {
        // A fetch that ends with the read that brought its head gets no `fetchDidEndRead`.
        waiters.announce()
        var failure: OriginError?
        if case .failure(let error) = result { failure = error }
        dependencies.metrics.originFetchFinished(
            error: failure, nanoseconds: DispatchTime.now().uptimeNanoseconds &- startedUptime)
        let (storing, first) = state.withLock { state -> (Bool, Bool) in
            guard !state.finished else { return (false, false) }
            state.finished = true
            return (state.storing && failure == nil, true)
        }
        guard first else { return }
        body.finish(failure.map { .failure($0) } ?? .success(()))
        // No head yet, or a held response that will never be complete: every caller gets the failure.
        if let failure { waiters.settle(.failure(failure), tellingNow: true) }
        // A held response (image validation) still untold: told once the store has its verdict.
        let held = waiters.outcome == nil
        storeLane.async { [self] in
            if storing {
                drainStore()
                commit { [self] in finishStoring() }
            } else {
                if storeLane.abandonWriter() { body.storeStopped() }
                if held { releaseHeld() }
                finishStoring()
            }
        }
    }

    /// The store is done with this fetch (committed, refused or abandoned): its bytes leave the backlog
    /// and new callers no longer join it. A revalidation may run it twice (from `revalidate`, and from
    /// `fetch(_:didFinish:)` when the origin's end came before the 304 was handled): it gives back once.
    func finishStoring() {
        let held = state.withLock { state in
            defer { state.backlogBytes = 0 }
            return state.backlogBytes
        }
        dependencies.backlog.subtract(held)
        dependencies.registry.remove(self)
    }
}
