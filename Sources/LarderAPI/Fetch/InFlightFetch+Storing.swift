import CacheCore
import CachePolicy
import Dispatch
import FoundationEssentials
import HTTPCore
import ImageSniffing
import Synchronization
import Upstream

extension InFlightFetch {
    /// Validates (when the filter asks) and commits the body; runs on `storeLane` after the last byte.
    /// The commit itself does not block the queue: the store may group it with others (`SQLiteCommitGroup`), and
    /// `done` runs when it is over, on whatever thread the store tells its result.
    func commit(then done: @escaping @Sendable () -> Void) {
        guard let writer = storeLane.writer else {
            releaseHeld()
            done()
            return
        }
        storeLane.writer = nil
        let (head, responseTime, varyNames, facts) = state.withLock {
            ($0.head, $0.responseTime, $0.varyNames, $0.facts)
        }
        guard var head else {
            writer.abandon()
            body.storeStopped()
            done()
            return
        }
        var imageFormat: String?
        var declaredContentType: String?
        if order.decision.validateImage {
            let validator = ImageValidator(
                limits: dependencies.configuration.imageLimits, allowSVG: order.decision.allowSVG)
            // Held whole until now (`InFlightBody.holdWhole`); a body that outgrew the hold is not stored.
            switch validator.validate(body.whole ?? []) {
            case .valid(let info):
                imageFormat = info.format.rawValue
                if let refusal = StoreAdmission.contentTypeRefusal(info.format.mimeType, decision: order.decision) {
                    refuse(writer, refusal)
                    done()
                    return
                }
                declaredContentType = Self.retype(&head, as: info.format)
                // Callers are held until now (validation), so every one of them gets the sniffed type too.
                if declaredContentType != nil { state.withLock { $0.head = head } }
            case .invalid(let rejection):
                dependencies.metrics.imageValidationFailed(format: rejection.format, stage: .admission)
                refuse(writer, "not a valid image: \(rejection)", invalidImage: true)
                done()
                return
            }
        }
        var entry = makeEntry(
            head: head, varyNames: varyNames, responseTime: responseTime, imageFormat: imageFormat, facts: facts)
        entry.declaredContentType = declaredContentType
        dependencies.tag(&entry, responseHeaders: head.headers, filterTags: order.decision.tags)
        // Whatever memory holds for this URL is about to be replaced.
        let url = order.keyURL
        dependencies.hot.remove(url: order.url)
        writer.commit(entry) { [self] result in
            switch result {
            case .success:
                // Again after the commit: a hit may have put the old entry back in memory meanwhile.
                dependencies.hot.remove(url: order.url)
                dependencies.metrics.storeWriteSucceeded()
                body.storeCommitted()
            case .failure(let error):
                state.withLock {
                    $0.storing = false; $0.refusal = "store: \(error)"
                }
                body.storeStopped()
                dependencies.recordStoreFailure(url: url, error: error)
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
    private func makeEntry(
        head: OriginResponseHead, varyNames: [String], responseTime: Date, imageFormat: String?, facts: ResponseFacts?
    ) -> StoredEntry {
        StoredEntry.recording(
            status: HTTPStatus(code: head.status, reasonPhrase: head.reasonPhrase.isEmpty ? nil : head.reasonPhrase),
            headers: head.headers, url: order.keyURL, requestHeaders: order.requestHeaders, requestTime: requestTime,
            responseTime: responseTime, filterName: order.decision.filterName, imageFormat: imageFormat,
            lifetimes: lifetimes, varyNames: varyNames, facts: facts)
    }

    /// What decides how long this fetch's entry is fresh and kept.
    var lifetimes: StoredEntry.Lifetimes {
        StoredEntry.Lifetimes(
            overrides: order.decision.overrides, staleIfDisconnected: dependencies.configuration.staleIfDisconnected,
            revalidationAllowance: dependencies.configuration.revalidationAllowance,
            targets: dependencies.configuration.targetedCacheControl)
    }

    /// Tells callers held until the body was complete (image validation) what they get.
    func releaseHeld() {
        body.releaseWhole()
        guard waiters.outcome == nil else { return }
        let (head, admission) = state.withLock { state in
            (
                state.head,
                StoreAdmission(stored: state.storing, refusal: state.refusal, invalidImage: state.invalidImage)
            )
        }
        guard let head else { return }
        waiters.settle(.response(head, admission: admission), tellingNow: true)
    }

    /// Freshens the stored entry after a 304, or a matching 200 to a forwarded HEAD (RFC 9111 §4.3.4,
    /// §4.3.5), and tells every caller; `head.status` is the forward status their `Cache-Status` names.
    func revalidate(_ stored: StoredEntry, by head: OriginResponseHead, responseTime: Date) {
        storeLane.async { [self] in
            let outcome: InFlightOutcome
            if let entry = stored.freshened(
                by: head.headers, requestTime: requestTime, responseTime: responseTime, lifetimes: lifetimes)
            {
                _ = try? dependencies.store.updateMetadata(entry)
                outcome = .revalidated(entry, forwardStatus: head.status)
            } else {
                outcome = .failure(.protocolError(detail: "304 names another representation than the stored one"))
            }
            state.withLock { $0.finished = true }
            waiters.settle(outcome, tellingNow: true)
            // The origin's end is no longer waited for (`finished`): its place in the backlog goes now.
            finishStoring()
        }
    }

    /// Deletes the stored response a forwarded HEAD's answer says is another representation (RFC 9111
    /// §4.3.5), unless another body replaced it meanwhile, then relays that answer: before it leaves, so
    /// that the caller's next request cannot be served what it invalidated.
    func invalidateThenRelay(_ stored: StoredEntry, head: OriginResponseHead, responseTime: Date) {
        state.withLock { state in
            state.head = head
            state.responseTime = responseTime
        }
        storeLane.async { [self] in
            _ = try? dependencies.store.delete(stored)
            waiters.settle(.response(head, admission: .bypass), tellingNow: true)
        }
    }
}
