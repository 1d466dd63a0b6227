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
/// The body is kept in an append-only buffer while the fetch runs; each caller reads it through its own
/// `InFlightBodySource` with its own offset, so a caller that joins late still gets the body from its
/// first byte, and a slow or departed caller never holds up the others or the origin. Memory: one fetch
/// holds at most its body, which the origin client bounds by `maxObjectBytes`; the buffer is released
/// when the fetch ends and its last reader is done. (Next step for very large bodies: drop the prefix
/// every reader has passed once the fetch is no longer joinable, or let late joiners read the committed
/// prefix from the store.)
///
/// Origin callbacks arrive on the origin client's driver thread and only touch memory; every store call
/// runs on `storeQueue`, a serial queue of this fetch, in arrival order.
final class InFlightFetch: OriginFetchDelegate, Sendable {
    /// A caller waiting for the outcome.
    typealias Waiter = @Sendable (InFlightOutcome) -> Void

    struct Pull {
        let maxBytes: Int
        let deliver: @Sendable (HTTPBodyChunk) -> Void
    }

    struct State {
        var outcome: InFlightOutcome?
        var waiters: [Waiter] = []
        var joined = 0
        var buffer: [UInt8] = []
        /// `nil` while the body is arriving; then `.success` or the failure.
        var end: Result<Void, OriginError>?
        var cursors: [Int: Int] = [:]
        var pulls: [Int: Pull] = [:]
        var nextReader = 0
        var head: OriginResponseHead?
        var storing = false
        var refusal: String?
        var holdUntilComplete = false
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
    let requestTime: Date
    let service: FetchService
    let state = Mutex(State())
    private let writerBox = WriterBox()
    private let storeQueue = DispatchQueue(label: "larder.fetch.store", qos: .userInitiated)

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
    }

    /// Sends the request to the origin, conditional on the stored entry's validators when there is one.
    /// - Parameter conditionalHeaders: `If-None-Match` / `If-Modified-Since` for a revalidation.
    func start(conditionalHeaders: HTTPHeaders) {
        var headers = requestHeaders
        if mayStore {
            // The fetch is shared and its answer stored: the caller's own conditionals and ranges are
            // answered by Larder from the full response, never forwarded.
            for name in Self.callerOnlyFields { headers.remove(name: name) }
            for field in conditionalHeaders { headers.add(name: field.name, value: field.value) }
        }
        let request = OriginRequest(method: .get, url: url, headers: headers)
        let fetch = service.client.fetch(request, delegate: self)
        state.withLock { $0.originFetch = fetch }
    }

    static let callerOnlyFields = ["If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range", "Range"]

    /// Adds a caller; it is told the outcome once (at once if known).
    /// - Parameter waiter: receives the outcome.
    /// - Returns: `false` when the fetch already has `maxWaiters` callers.
    func join(_ waiter: @escaping Waiter) -> Bool {
        let known: InFlightOutcome?? = state.withLock { state in
            guard state.joined < service.configuration.maxWaiters else { return .none }
            state.joined += 1
            if let outcome = state.outcome { return .some(outcome) }
            state.waiters.append(waiter)
            return .some(nil)
        }
        switch known {
        case .none: return false
        case .some(.some(let outcome)): waiter(outcome)
        case .some(.none): break
        }
        return true
    }

    /// A snapshot for `/fetches`.
    var snapshot: (bytesReceived: Int, bytesExpected: Int?, waiters: Int, status: Int?) {
        let (joined, fetch, head, count) = state.withLock { ($0.joined, $0.originFetch, $0.head, $0.buffer.count) }
        let progress = fetch?.progress
        return (progress?.bytesReceived ?? count, progress?.bytesExpected, joined, head?.status)
    }

    // MARK: Origin callbacks (driver thread)

    func fetch(_ fetch: OriginFetch, didReceiveHead head: OriginResponseHead) {
        let responseTime = service.clock()
        if head.status == 304, let stored {
            revalidate(stored, notModified: head, responseTime: responseTime)
            return
        }
        let admission = admit(head)
        let hold = admission.stored && decision.validateImage
        var waiters: [Waiter] = []
        state.withLock { state in
            state.head = head
            state.responseTime = responseTime
            state.storing = admission.stored
            state.refusal = admission.refusal
            state.holdUntilComplete = hold
            if let length = head.headers["Content-Length"].flatMap({ Int($0) }), length <= service.configuration.maxObjectBytes {
                state.buffer.reserveCapacity(length)
            }
            if !hold {
                state.outcome = .response(head, admission: admission)
                waiters = state.waiters
                state.waiters = []
            }
        }
        if admission.stored {
            let hints = CacheBodyHints(headers: head.headers)
            storeQueue.async { [self] in
                do {
                    writerBox.writer = try service.store.beginWrite(hints: hints)
                } catch {
                    state.withLock { $0.refusal = "store: \(error)"; $0.storing = false }
                }
            }
        }
        for waiter in waiters { waiter(.response(head, admission: admission)) }
    }

    func fetch(_ fetch: OriginFetch, didReceive bytes: [UInt8]) {
        var ready: [(Pull, [UInt8])] = []
        let (storing, overLimit) = state.withLock { state -> (Bool, Bool) in
            guard state.end == nil, state.head != nil else { return (false, false) }
            state.buffer.append(contentsOf: bytes)
            for (reader, pull) in state.pulls {
                let offset = state.cursors[reader] ?? 0
                let end = min(state.buffer.count, offset + pull.maxBytes)
                ready.append((pull, Array(state.buffer[offset..<end])))
                state.cursors[reader] = end
            }
            state.pulls.removeAll(keepingCapacity: true)
            var overLimit = false
            if state.storing, let limit = decision.maxBytes, state.buffer.count > limit {
                state.storing = false
                state.refusal = "larger than the filter's maxBytes \(limit)"
                overLimit = true
            }
            return (state.storing, overLimit)
        }
        for (pull, piece) in ready { pull.deliver(.bytes(piece)) }
        if storing {
            storeQueue.async { [self] in
                guard let writer = writerBox.writer else { return }
                do {
                    try writer.append(bytes)
                } catch {
                    writerBox.writer = nil
                    state.withLock { $0.storing = false; $0.refusal = "store: \(error)" }
                }
            }
        } else if overLimit {
            storeQueue.async { [self] in
                writerBox.writer?.abandon()
                writerBox.writer = nil
            }
        }
    }

    func fetch(_ fetch: OriginFetch, didFinish result: Result<OriginFetchMetrics, OriginError>) {
        var failure: OriginError?
        if case .failure(let error) = result { failure = error }
        var waiters: [Waiter] = []
        var ready: [(Pull, HTTPBodyChunk)] = []
        let (storing, held) = state.withLock { state -> (Bool, Bool) in
            guard state.end == nil else { return (false, false) }
            state.end = failure.map { .failure($0) } ?? .success(())
            for (_, pull) in state.pulls { ready.append((pull, failure.map { .failure($0) } ?? .end)) }
            state.pulls.removeAll()
            if state.outcome == nil, let failure {
                // No head yet, or a held response that will never be complete: every caller gets the failure.
                state.outcome = .failure(failure)
                waiters = state.waiters
                state.waiters = []
            }
            return (state.storing && failure == nil, state.outcome == nil)
        }
        for (pull, chunk) in ready { pull.deliver(chunk) }
        if let failure {
            for waiter in waiters { waiter(.failure(failure)) }
        }
        storeQueue.async { [self] in
            if storing {
                commit()
            } else {
                writerBox.writer?.abandon()
                writerBox.writer = nil
                if held { releaseHeld() }
            }
            service.registry.remove(self)
        }
    }

    // MARK: Storing (storeQueue)

    /// Decides whether a response goes into the store: the action, RFC 9111 §3, the filter's content
    /// types and byte bound.
    private func admit(_ head: OriginResponseHead) -> InFlightAdmission {
        guard mayStore else { return .bypass }
        switch Storability.evaluate(
            requestMethod: .get, requestHeaders: requestHeaders, status: head.status, responseHeaders: head.headers)
        {
        case .doNotStore(let reason):
            return InFlightAdmission(stored: false, refusal: reason.rawValue)
        case .store:
            break
        }
        if stored != nil, StaleIfError.errorStatuses.contains(head.status) {
            return InFlightAdmission(stored: false, refusal: "origin error kept out of the store")
        }
        if !decision.contentTypes.isEmpty {
            let mediaType = (head.headers["Content-Type"] ?? "").split(separator: ";").first.map {
                $0.trimmingHTTPWhitespace().lowercased()
            } ?? ""
            guard decision.contentTypes.contains(where: { Self.mediaType(mediaType, matches: $0) }) else {
                return InFlightAdmission(stored: false, refusal: "content type '\(mediaType)' not admitted")
            }
        }
        if let limit = decision.maxBytes, let length = head.headers["Content-Length"].flatMap({ Int($0) }),
            length > limit
        {
            return InFlightAdmission(stored: false, refusal: "larger than the filter's maxBytes \(limit)")
        }
        return InFlightAdmission(stored: true, refusal: nil)
    }

    /// `image/*` style matching of a media type against a filter's pattern.
    static func mediaType(_ mediaType: String, matches pattern: String) -> Bool {
        let pattern = pattern.lowercased()
        if pattern == "*/*" || pattern == "*" { return true }
        if pattern.hasSuffix("/*") { return mediaType.hasPrefix(pattern.dropLast()) }
        return mediaType == pattern
    }

    /// Validates (when the filter asks) and commits the body; runs on `storeQueue` after the last byte.
    private func commit() {
        guard let writer = writerBox.writer else {
            releaseHeld()
            return
        }
        writerBox.writer = nil
        let (head, responseTime, body) = state.withLock { ($0.head, $0.responseTime, $0.buffer) }
        guard let head else {
            writer.abandon()
            return
        }
        var imageFormat: String?
        if decision.validateImage {
            let validator = ImageValidator(allowSVG: decision.allowSVG)
            switch validator.validate(body) {
            case .valid(let info):
                imageFormat = info.format.rawValue
            case .invalid(let rejection):
                writer.abandon()
                state.withLock { $0.storing = false; $0.refusal = "not a valid image: \(rejection)" }
                releaseHeld()
                return
            }
        }
        let entry = makeEntry(head: head, responseTime: responseTime, imageFormat: imageFormat)
        do {
            try writer.commit(entry)
        } catch {
            state.withLock { $0.storing = false; $0.refusal = "store: \(error)" }
        }
        releaseHeld()
    }

    /// The metadata stored for a response.
    private func makeEntry(head: OriginResponseHead, responseTime: Date, imageFormat: String?) -> StoredEntry {
        let facts = ResponseFacts(
            status: head.status, headers: head.headers, requestTime: Int64(requestTime.timeIntervalSince1970),
            responseTime: Int64(responseTime.timeIntervalSince1970))
        let varyNames: [String]
        if case .names(let names) = Vary.field(in: head.headers) { varyNames = names } else { varyNames = [] }
        let storeKey = FetchKeys.key(canonicalURL: keyURL, varyNames: varyNames, requestHeaders: requestHeaders)
        let lifetime = Double(facts.freshnessLifetime(overrides: decision.overrides).seconds)
        return StoredEntry(
            key: storeKey, url: keyURL, status: HTTPStatus(code: head.status, reasonPhrase: head.reasonPhrase.isEmpty ? nil : head.reasonPhrase),
            headers: HeaderFilter.storable(head.headers), varyNames: varyNames, requestTime: requestTime,
            responseTime: responseTime,
            date: head.headers["Date"].flatMap { HTTPDate($0) }.map { Date(timeIntervalSince1970: Double($0.secondsSinceEpoch)) },
            ageReceived: Int(facts.ageValue), freshnessLifetime: lifetime,
            staleAllowance: staleAllowance(facts), filterName: decision.filterName, imageFormat: imageFormat)
    }

    /// How long past expiry the entry is kept: the longest stale window, or long enough to revalidate.
    private func staleAllowance(_ facts: ResponseFacts) -> Double {
        let control = facts.cacheControl
        let windows: [Int64] = [
            control.staleIfError.value ?? 0, control.staleWhileRevalidate.value ?? 0,
            decision.overrides.staleIfError ?? 0, decision.overrides.staleWhileRevalidate ?? 0,
        ]
        let window = Double(windows.max() ?? 0)
        return Revalidation.hasValidator(facts) ? max(window, service.configuration.revalidationAllowance) : window
    }

    /// Tells callers held until the body was complete (image validation) what they get.
    private func releaseHeld() {
        var waiters: [Waiter] = []
        var outcome: InFlightOutcome?
        state.withLock { state in
            guard state.outcome == nil, let head = state.head else { return }
            let made = InFlightOutcome.response(head, admission: InFlightAdmission(stored: state.storing, refusal: state.refusal))
            state.outcome = made
            outcome = made
            waiters = state.waiters
            state.waiters = []
        }
        guard let outcome else { return }
        for waiter in waiters { waiter(outcome) }
    }

    /// Freshens the stored entry after a 304 (RFC 9111 §4.3.4) and tells every caller.
    private func revalidate(_ stored: StoredEntry, notModified head: OriginResponseHead, responseTime: Date) {
        storeQueue.async { [self] in
            let facts = FetchKeys.facts(of: stored)
            let outcome: InFlightOutcome
            if let fresh = Revalidation.freshen(
                stored: facts, notModified: head.headers, requestTime: Int64(requestTime.timeIntervalSince1970),
                responseTime: Int64(responseTime.timeIntervalSince1970))
            {
                var entry = stored
                entry.headers = fresh.headers
                entry.requestTime = requestTime
                entry.responseTime = responseTime
                entry.date = fresh.headers["Date"].flatMap { HTTPDate($0) }.map {
                    Date(timeIntervalSince1970: Double($0.secondsSinceEpoch))
                }
                entry.ageReceived = Int(fresh.ageValue)
                entry.freshnessLifetime = Double(fresh.freshnessLifetime(overrides: decision.overrides).seconds)
                entry.staleAllowance = staleAllowance(fresh)
                _ = try? service.store.updateMetadata(entry)
                outcome = .revalidated(entry)
            } else {
                outcome = .failure(.protocolError(detail: "304 names another representation than the stored one"))
            }
            let waiters = state.withLock { state -> [Waiter] in
                state.outcome = outcome
                state.end = .success(())
                let waiters = state.waiters
                state.waiters = []
                return waiters
            }
            for waiter in waiters { waiter(outcome) }
            service.registry.remove(self)
        }
    }

    // MARK: Readers

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

/// The body writer of one fetch; only touched on the fetch's `storeQueue`.
private final class WriterBox: @unchecked Sendable {
    // Guarded by InFlightFetch.storeQueue: every read and write happens in a block on it.
    var writer: (any CacheBodyWriter)?
}
