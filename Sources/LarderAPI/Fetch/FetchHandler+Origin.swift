import CacheCore
import CachePolicy
import Dispatch
import FoundationEssentials
import HTTPCore
import HTTPServer
import Synchronization
import Upstream

extension FetchHandler.Call {
    /// The caller's fields with `X-Request-Id` set to the request's identifier, for the origin: the
    /// caller's own when usable, the one Larder made otherwise (built on misses only, not on hits).
    var originHeaders: HTTPHeaders {
        var fields = headers
        fields.replaceOrAdd(name: HTTPRequestID.fieldName, value: requestID.description)
        return fields
    }
}

extension FetchHandler {
    /// Joins the fetch under way for `key`, or starts one (conditional on `stored`'s validators when
    /// given), and answers the caller when the outcome is known.
    ///
    /// A request with `Authorization` never shares a fetch: its answer may be for that caller alone
    /// (RFC 9111 §3.5), and it must not ride on another caller's credentials either. It is still stored
    /// when the response allows shared reuse.
    func fetchFromOrigin(
        _ call: Call, key: CacheKey, stored: StoredEntry?, conditionalHeaders: HTTPHeaders = HTTPHeaders(),
        forward: CacheStatus.Forward, coalesce: Bool = true
    ) {
        let shared = coalesce && !call.headers.contains("Authorization")
        let (fetch, isNew) = service.registry.fetch(for: key, coalesce: shared) { id in
            makeFetch(id, call, key: key, revalidating: stored, purpose: .store)
        }
        guard wait(on: fetch, call: call, key: key, stored: stored, forward: forward, collapsed: !isNew) else {
            // The fetch takes no new callers (a new fetch always does): its response will not be stored, or
            // it let go of its first bytes and cannot give them back, or it is committed. Sealed here too, so
            // that the retry below cannot find it again.
            service.registry.seal(key: fetch.order.key, id: fetch.id)
            if fetch.body.isStored {
                // Committed since this caller's lookup missed: the store answers it (or revalidates the entry).
                service.executor.submit { lookUp(call) }
                return
            }
            // Otherwise this caller starts a fetch of its own.
            fetchFromOrigin(
                call, key: key, stored: stored, conditionalHeaders: conditionalHeaders, forward: forward,
                coalesce: coalesce)
            return
        }
        if isNew {
            fetch.start(conditionalHeaders: conditionalHeaders)
        } else {
            service.metrics.callerCoalesced()
        }
    }

    /// Starts a refresh nobody waits for (RFC 5861 §3), unless one is already under way for the key.
    func refreshInBackground(_ call: Call, key: CacheKey, entry: StoredEntry, conditionalHeaders: HTTPHeaders) {
        let (fetch, isNew) = service.registry.fetch(for: key, coalesce: true) { id in
            makeFetch(
                id, call, key: key, revalidating: conditionalHeaders.isEmpty ? nil : entry, purpose: .store,
                relaysInterim: false)
        }
        if isNew { fetch.start(conditionalHeaders: conditionalHeaders) }
    }

    /// Fetches for this caller alone, streams the answer and stores nothing (`X-Cache: BYPASS`).
    func bypass(_ call: Call) {
        // Only GET and HEAD come here: every other method is forwarded before a filter can bypass.
        fetchAlone(call, key: call.primaryKey, method: call.method, forward: .bypass)
    }

    /// Forwards a `HEAD` as a `HEAD` when the stored response has no validator to make a conditional
    /// `GET` with (an unconditional one would pull the whole body for a bodiless answer), relays the
    /// origin's answer, and lets a `200` update or invalidate the stored response first (RFC 9111 §4.3.5,
    /// in `InFlightFetch`). Never coalesced: a `HEAD`'s answer is no `GET` caller's.
    func forwardHead(_ call: Call, key: CacheKey, stored: StoredEntry) {
        fetchAlone(call, key: key, method: .head, updating: stored, forward: .stale)
    }

    /// Fetches for this caller alone: never coalesced, never stored, the answer relayed to it.
    /// - Parameters:
    ///   - method: the method sent.
    ///   - content: the caller's content, for a method that sends one.
    ///   - stored: the stored response a `HEAD`'s answer updates or invalidates, if any.
    ///   - forward: why the cache forwarded it (`Cache-Status`).
    func fetchAlone(
        _ call: Call, key: CacheKey, method: HTTPMethod, content: [UInt8]? = nil, updating stored: StoredEntry? = nil,
        forward: CacheStatus.Forward
    ) {
        let (fetch, _) = service.registry.fetch(for: key, coalesce: false) { id in
            makeFetch(id, call, key: key, revalidating: stored, purpose: .forward(method, content: content))
        }
        // A new fetch always takes its first caller.
        _ = wait(on: fetch, call: call, key: key, stored: stored, forward: forward, collapsed: false)
        fetch.start()
    }

    /// The one way a fetch is made, for a shared miss, a background refresh, a bypass or a forward.
    /// - Parameters:
    ///   - id: its number in the registry.
    ///   - revalidating: the stored entry its request is conditional on, or a forwarded HEAD's answer updates.
    ///   - purpose: whether its answer may be stored, or is forwarded to `call`'s caller alone.
    ///   - relaysInterim: whether the origin's interim responses go to `call`'s caller (`false` when it was
    ///     answered already: a background refresh).
    func makeFetch(
        _ id: Int, _ call: Call, key: CacheKey, revalidating stored: StoredEntry?, purpose: FetchOrder.Purpose,
        relaysInterim: Bool = true
    ) -> InFlightFetch {
        let order = FetchOrder(
            key: key, url: call.fetchURL, keyURL: call.keyURL, decision: call.decision, stored: stored,
            requestHeaders: call.originHeaders, purpose: purpose)
        return InFlightFetch(
            id: id, order: order, interimRecipient: relaysInterim ? call.writer : nil, dependencies: service.inFlight)
    }

    /// Registers the caller on a fetch with a deadline for the outcome, and as a reader of its body from
    /// the first byte.
    /// - Returns: `false` when the fetch no longer takes callers (nothing was done for this one).
    func wait(
        on fetch: InFlightFetch, call: Call, key: CacheKey, stored: StoredEntry?, forward: CacheStatus.Forward,
        collapsed: Bool
    ) -> Bool {
        guard let reader = fetch.body.addReader() else { return false }
        let handler = self
        // A caller who comes once the response exists reuses it as a stored one; one before shares the answer
        // to a request made at the same time.
        let joinedAfterHead = collapsed && fetch.receivedHead
        let joined = fetch.join { outcome in
            let relaying = handler.answer(
                call, outcome: outcome, fetch: fetch, reader: reader, key: key, stored: stored, forward: forward,
                collapsed: collapsed, joinedAfterHead: joinedAfterHead)
            if !relaying { fetch.body.removeReader(reader) }
        }
        guard joined else {
            fetch.body.removeReader(reader)
            call.writer.send(
                APIError(
                    status: .serviceUnavailable, type: .tooManyWaiters,
                    detail: "\(service.configuration.maxWaiters) callers already wait on this URL's fetch."
                ).makeResponse())
            return true
        }
        return true
    }

    /// Answers one caller with a fetch's outcome (on the origin thread or the fetch's store queue;
    /// anything that touches the store is handed to the executor).
    /// - Returns: whether the caller's answer reads the fetch's body with `reader` (else it is let go).
    private func answer(
        _ call: Call, outcome: InFlightOutcome, fetch: InFlightFetch, reader: Int, key: CacheKey,
        stored: StoredEntry?, forward: CacheStatus.Forward, collapsed: Bool, joinedAfterHead: Bool
    ) -> Bool {
        let cacheName = service.configuration.cacheName
        switch outcome {
        case .revalidated(let entry, let forwardStatus):
            service.executor.submit { [self] in
                let facts = entry.facts(targets: service.configuration.targetedCacheControl)
                let now = Int64(service.clock().timeIntervalSince1970)
                let age = facts.currentAge(now: now)
                let ttl = facts.freshnessLifetime(overrides: call.decision.overrides).seconds - age
                let status = CacheStatus(
                    cacheName: cacheName, forward: forward, forwardStatus: forwardStatus, ttl: ttl,
                    collapsed: collapsed)
                serveStoredOrRefetch(call, key: key, entry: entry, xCache: .revalidated, age: age, cacheStatus: status)
            }
            return false
        case .failure(let error):
            let failure: StaleIfError.OriginFailure
            switch error {
            case .connectFailed, .timeout, .protocolError, .connectionLost, .cancelled: failure = .unreachable
            default: failure = .status(0)
            }
            // The origin's or the caller's own `stale-if-error` first; then the disconnected default
            // (RFC 9111 §4.2.4), which a failure after a response head is not.
            if let stored, serveStaleIfAllowed(call, key: key, entry: stored, failure: failure, detail: error.kind) {
                return false
            }
            if let stored, error.isDisconnection, !fetch.receivedHead,
                serveStaleIfDisconnected(call, key: key, entry: stored, forward: forward, detail: error.kind)
            {
                return false
            }
            call.writer.send(APIError.origin(error).makeResponse())
            return false
        case .waitExpired:
            // No head within the caller's wait: to this caller the origin is as good as gone.
            if let stored, !fetch.receivedHead,
                serveStaleIfDisconnected(call, key: key, entry: stored, forward: forward, detail: "origin-timeout")
            {
                return false
            }
            call.writer.send(
                APIError(
                    status: .gatewayTimeout, type: .waiterTimeout,
                    detail: "No response head from the origin within \(service.configuration.waiterTimeout)."
                ).makeResponse())
            return false
        case .response(_, let admission) where collapsed && !admission.storable:
            // A response no cache may store answers only the request it was fetched for (RFC 9111 §4: only a
            // response that is "stored or storable" may satisfy collapsed requests). This caller forwards its
            // own, alone: collapsing again onto a URL that answers `no-store` would queue callers one by one.
            fetchFromOrigin(call, key: key, stored: stored, forward: forward, coalesce: false)
            return false
        case .response(_, let admission) where collapsed && admission.stored && Self.asksRange(call):
            // The body is being stored: the range is answered from the stored entry once it is committed (a
            // 206, `CacheBodyPlan`), or the lookup misses and starts a fetch when storing stops.
            fetch.body.whenStoreDecided { [self] in service.executor.submit { lookUp(call) } }
            return false
        case .response(let head, let admission)
        where joinedAfterHead && admission.stored && !fetch.reusableWithoutValidation(head, by: call):
            // To a caller who came after it, the response is a stored one (RFC 9111 §4): `no-cache`, a zero
            // lifetime or the caller's own `no-cache` / `max-age` let it be reused only once validated. The
            // committed entry is looked up again and revalidated (or the lookup misses if storing failed).
            fetch.body.whenStoreDecided { [self] in service.executor.submit { lookUp(call) } }
            return false
        case .response(let head, _)
        where collapsed
            && !Vary.matches(
                field: Vary.field(in: head.headers), originalRequest: fetch.order.requestHeaders,
                newRequest: call.headers):
            // The shared response varies on a header this caller sent differently (RFC 9111 §4.1): it
            // needs its own fetch, keyed by its own variant.
            let names = Vary.names(in: head.headers)
            let variant = CacheKey.variant(canonicalURL: call.keyURL, varyNames: names, requestHeaders: call.headers)
            fetchFromOrigin(call, key: variant, stored: nil, forward: .varyMiss, coalesce: !names.isEmpty)
            return false
        case .response(let head, let admission):
            if let stored, StaleIfError.errorStatuses.contains(head.status),
                serveStaleIfAllowed(
                    call, key: key, entry: stored, failure: .status(head.status), detail: "origin \(head.status)")
            {
                return false
            }
            let status = CacheStatus(
                cacheName: cacheName, forward: forward, forwardStatus: head.status, stored: admission.stored,
                collapsed: collapsed, detail: admission.refusal)
            let response = relayed(
                head, body: fetch.body, reader: reader, call: call, key: key,
                xCache: forward == .bypass || forward == .method || admission.invalidImage ? .bypass : .miss,
                cacheStatus: status)
            let relaying = if case .stream = response.body { true } else { false }
            if forward == .method, Self.invalidates(method: call.method, status: head.status) {
                // Before the answer leaves, so that a caller who saw it cannot then be served what it replaced.
                service.executor.submit { [self] in
                    invalidate(after: call, responseHeaders: head.headers)
                    call.writer.send(response)
                }
                return relaying
            }
            call.writer.send(response)
            return relaying
        }
    }

    /// Serves the stored entry marked stale when RFC 5861 `stale-if-error` allows it for this caller.
    /// - Returns: whether it did (asynchronously, on the executor).
    private func serveStaleIfAllowed(
        _ call: Call, key: CacheKey, entry: StoredEntry, failure: StaleIfError.OriginFailure, detail: String
    ) -> Bool {
        let facts = entry.facts(targets: service.configuration.targetedCacheControl)
        let decision = StaleIfError.decide(
            stored: facts, requestMethod: call.method, requestHeaders: call.headers, failure: failure,
            now: Int64(service.clock().timeIntervalSince1970), overrides: call.decision.overrides)
        guard case .serveStale(let age, _) = decision else { return false }
        let ttl = facts.freshnessLifetime(overrides: call.decision.overrides).seconds - age
        let status = CacheStatus(
            cacheName: service.configuration.cacheName, hit: true, ttl: ttl, detail: "stale-if-error: \(detail)")
        service.executor.submit { [self] in
            serveStoredOrRefetch(call, key: key, entry: entry, xCache: .stale, age: age, cacheStatus: status)
        }
        return true
    }

    /// Serves the stored entry marked stale when the origin cannot be reached and RFC 9111 §4.2.4 allows
    /// it for this caller (`--stale-if-disconnected`, or the filter's `staleIfDisconnected`).
    /// - Returns: whether it did (asynchronously, on the executor).
    private func serveStaleIfDisconnected(
        _ call: Call, key: CacheKey, entry: StoredEntry, forward: CacheStatus.Forward, detail: String
    ) -> Bool {
        let facts = entry.facts(targets: service.configuration.targetedCacheControl)
        let overrides = call.decision.overrides
        let decision = StaleIfDisconnected.decide(
            stored: facts, requestMethod: call.method, requestHeaders: call.headers,
            now: Int64(service.clock().timeIntervalSince1970),
            window: StaleIfDisconnected.window(
                setting: service.configuration.staleIfDisconnected, overrides: overrides),
            overrides: overrides)
        guard case .serveStale(let age, _, _) = decision else { return false }
        service.metrics.servedStaleDisconnected()
        // Forwarded, and no status came back: `fwd` without `fwd-status` (RFC 9211 §2.2, §2.3).
        let status = CacheStatus(
            cacheName: service.configuration.cacheName, forward: forward,
            ttl: facts.freshnessLifetime(overrides: overrides).seconds - age,
            detail: "stale-if-disconnected: \(detail)")
        service.executor.submit { [self] in
            serveStoredOrRefetch(call, key: key, entry: entry, xCache: .stale, age: age, cacheStatus: status)
        }
        return true
    }

    /// The origin's response relayed to one caller, its body read from the fetch's shared body by `reader`.
    private func relayed(
        _ head: OriginResponseHead, body: InFlightBody, reader: Int, call: Call, key: CacheKey, xCache: XCache,
        cacheStatus: CacheStatus
    ) -> HTTPResponse {
        let length = head.headers["Content-Length"].flatMap { Int($0) }
        // One copy of the origin's fields, sized for the three marks: removing the replaced ones from a
        // shared copy and appending to it copied the fields twice (callgrind). The head's fields are
        // end-to-end already (`OriginResponseHead`).
        var headers = head.headers.removing(Self.relayReplacedNames, reservingExtra: 3)
        service.configuration.hideTagFields(&headers)
        headers.add(name: "X-Cache", value: xCache.rawValue)
        headers.add(name: "Cache-Status", value: cacheStatus.fieldValue)
        headers.add(name: "X-Cache-Key", value: key.hex)
        let status = HTTPStatus(code: head.status, reasonPhrase: head.reasonPhrase.isEmpty ? nil : head.reasonPhrase)
        if xCache != .bypass, head.status == 200, Self.callerConditionalFails(call.headers, responseHeaders: headers) {
            return Self.notModified(headers, marks: HTTPHeaders())
        }
        if status.forbidsContent { return HTTPResponse(status: status, headers: headers) }
        return HTTPResponse(
            status: status, headers: headers,
            body: .stream(InFlightBodySource(body: body, reader: reader), length: length))
    }

    /// The origin's fields a relayed response replaces with its own (`Content-Length` comes from the
    /// framing): prepared once, not on every miss.
    static let relayReplacedNames = FieldNames(["Content-Length", "X-Cache", "X-Cache-Key", "Cache-Status"])

    /// Whether the caller asks for a range Larder answers from a stored entry (RFC 9110 §14.2: GET only).
    static func asksRange(_ call: Call) -> Bool { call.method == .get && call.headers.contains("Range") }
}
