import CacheCore
import CachePolicy
import Foundation
import HTTPCore
import ImageSniffing
import Synchronization
import Upstream

extension InFlightFetch {
    /// Decides whether a response goes into the store: the action, RFC 9111 §3, the filter's content
    /// types and byte bound.
    func admit(_ head: OriginResponseHead) -> InFlightAdmission {
        guard mayStore else { return .bypass }
        switch Storability.evaluate(
            requestMethod: .get, requestHeaders: requestHeaders, status: head.status, responseHeaders: head.headers,
            ignoringResponseNoStore: decision.ignoreNoStore)
        {
        case .doNotStore(let reason):
            return InFlightAdmission(stored: false, refusal: reason.rawValue)
        case .store:
            break
        }
        if stored != nil, StaleIfError.errorStatuses.contains(head.status) {
            return InFlightAdmission(stored: false, refusal: "origin error kept out of the store")
        }
        // With image validation the sniffed type is the one stored and served, so the filter's content types
        // are checked against it once the body is complete (`commit`), not against the declared one here.
        if !decision.validateImage,
            let refusal = contentTypeRefusal(StoredEntry.mediaType(of: head.headers["Content-Type"]))
        {
            return InFlightAdmission(stored: false, refusal: refusal)
        }
        if let limit = decision.maxBytes, let length = head.headers["Content-Length"].flatMap({ Int($0) }),
            length > limit
        {
            return InFlightAdmission(stored: false, refusal: "larger than the filter's maxBytes \(limit)")
        }
        return InFlightAdmission(stored: true, refusal: nil)
    }

    /// Why the filter's `contentTypes` refuse a media type, or `nil` when they admit it (or list none).
    func contentTypeRefusal(_ mediaType: String?) -> String? {
        guard !decision.contentTypes.isEmpty,
            !decision.contentTypes.contains(where: { CacheEntryQuery.mediaType(mediaType, matches: $0) })
        else { return nil }
        return "content type '\(mediaType ?? "")' not admitted"
    }

    /// Validates (when the filter asks) and commits the body; runs on `storeQueue` after the last byte.
    /// The commit itself does not block the queue: the store may group it with others (`SQLiteCommitGroup`), and
    /// `done` runs when it is over, on whatever thread the store tells its result.
    func commit(then done: @escaping @Sendable () -> Void) {
        guard let writer = writerBox.writer else {
            releaseHeld()
            done()
            return
        }
        writerBox.writer = nil
        let (head, responseTime) = state.withLock { ($0.head, $0.responseTime) }
        guard var head else {
            writer.abandon()
            body.storeStopped()
            done()
            return
        }
        var imageFormat: String?
        var declaredContentType: String?
        if decision.validateImage {
            let validator = ImageValidator(limits: service.configuration.imageLimits, allowSVG: decision.allowSVG)
            // Held whole until now (`InFlightBody.holdWhole`); a body that outgrew the hold is not stored.
            switch validator.validate(body.whole ?? []) {
            case .valid(let info):
                imageFormat = info.format.rawValue
                if let refusal = contentTypeRefusal(info.format.mimeType) {
                    refuse(writer, refusal)
                    done()
                    return
                }
                declaredContentType = Self.retype(&head, as: info.format)
                // Callers are held until now (validation), so every one of them gets the sniffed type too.
                if declaredContentType != nil { state.withLock { $0.head = head } }
            case .invalid(let rejection):
                service.metrics.imageValidationFailed(format: rejection.format, stage: .admission)
                refuse(writer, "not a valid image: \(rejection)", invalidImage: true)
                done()
                return
            }
        }
        var entry = makeEntry(head: head, responseTime: responseTime, imageFormat: imageFormat)
        entry.declaredContentType = declaredContentType
        // Whatever memory holds for this URL is about to be replaced.
        let url = keyURL
        service.hot.remove(url: url)
        writer.commit(entry) { [self] result in
            switch result {
            case .success:
                // Again after the commit: a hit may have put the old entry back in memory meanwhile.
                service.hot.remove(url: url)
                service.metrics.storeWriteSucceeded()
            case .failure(let error):
                state.withLock {
                    $0.storing = false; $0.refusal = "store: \(error)"
                }
                body.storeStopped()
                service.recordStoreFailure(url: url, error: error)
            }
            releaseHeld()
            done()
        }
    }

    /// Drops a body that will not be stored and tells the held callers why.
    private func refuse(_ writer: any CacheBodyWriter, _ refusal: String, invalidImage: Bool = false) {
        writer.abandon()
        body.storeStopped()
        state.withLock {
            $0.storing = false; $0.refusal = refusal; $0.invalidImage = invalidImage
        }
        releaseHeld()
    }

    /// Makes the sniffed image type the response's `Content-Type` when the declared one disagrees
    /// (DESIGN.md: the bytes, not the label, say what the body is).
    /// - Returns: the declared `Content-Type` it replaced (empty when there was none), `nil` when they agree.
    static func retype(_ head: inout OriginResponseHead, as format: ImageFormat) -> String? {
        let declared = head.headers["Content-Type"]
        guard StoredEntry.mediaType(of: declared) != format.mimeType else { return nil }
        head.headers.replaceOrAdd(name: "Content-Type", value: format.mimeType)
        return declared ?? ""
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
            key: storeKey, url: keyURL,
            status: HTTPStatus(code: head.status, reasonPhrase: head.reasonPhrase.isEmpty ? nil : head.reasonPhrase),
            headers: HeaderFilter.storable(head.headers), varyNames: varyNames, requestTime: requestTime,
            responseTime: responseTime,
            date: head.headers["Date"].flatMap { HTTPDate($0) }.map {
                Date(timeIntervalSince1970: Double($0.secondsSinceEpoch))
            },
            ageReceived: Int(facts.ageValue), freshnessLifetime: lifetime,
            staleAllowance: staleAllowance(facts), filterName: decision.filterName, imageFormat: imageFormat)
    }

    /// How long past expiry the entry is kept: the longest stale window (answering when disconnected
    /// included), or long enough to revalidate.
    private func staleAllowance(_ facts: ResponseFacts) -> Double {
        let control = facts.cacheControl
        let disconnected = StaleIfDisconnected.window(
            setting: service.configuration.staleIfDisconnected, overrides: decision.overrides)
        let windows: [Int64] = [
            control.staleIfError.value ?? 0, control.staleWhileRevalidate.value ?? 0,
            decision.overrides.staleIfError ?? 0, decision.overrides.staleWhileRevalidate ?? 0,
            StaleIfDisconnected.allowance(for: facts, window: disconnected),
        ]
        let window = Double(windows.max() ?? 0)
        return Revalidation.hasValidator(facts) ? max(window, service.configuration.revalidationAllowance) : window
    }

    /// Tells callers held until the body was complete (image validation) what they get.
    func releaseHeld() {
        body.releaseWhole()
        var waiters: [Waiter] = []
        var outcome: InFlightOutcome?
        state.withLock { state in
            guard state.outcome == nil, let head = state.head else { return }
            let made = InFlightOutcome.response(
                head,
                admission: InFlightAdmission(
                    stored: state.storing, refusal: state.refusal, invalidImage: state.invalidImage))
            state.outcome = made
            outcome = made
            waiters = Self.takeWaiters(&state)
        }
        guard let outcome else { return }
        for waiter in waiters { waiter(outcome) }
    }

    /// Freshens the stored entry after a 304 (RFC 9111 §4.3.4) and tells every caller.
    func revalidate(_ stored: StoredEntry, notModified head: OriginResponseHead, responseTime: Date) {
        storeQueue.async { [self] in
            let facts = FetchKeys.facts(of: stored)
            let outcome: InFlightOutcome
            if let fresh = Revalidation.freshen(
                stored: facts, notModified: head.headers, requestTime: Int64(requestTime.timeIntervalSince1970),
                responseTime: Int64(responseTime.timeIntervalSince1970))
            {
                var entry = stored
                entry.headers = fresh.headers
                if stored.declaredContentType != nil, let served = stored.contentType {
                    // A 304 repeating the origin's label must not undo the sniffed type.
                    entry.headers.replaceOrAdd(name: "Content-Type", value: served)
                }
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
                state.finished = true
                return Self.takeWaiters(&state)
            }
            for waiter in waiters { waiter(outcome) }
            service.registry.remove(self)
        }
    }
}
