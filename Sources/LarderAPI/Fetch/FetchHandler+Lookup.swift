import CacheCore
import CachePolicy
import FoundationEssentials
import HTTPCore
import HTTPServer

extension FetchHandler {
    /// Looks the request up and acts on RFC 9111's decision; runs on the storage executor.
    ///
    /// The key is the canonical URL's primary key, or its secondary key when the store knows the `Vary`
    /// names recorded for the URL (RFC 9111 §4.1). A store that cannot be read counts as a miss.
    func lookUp(_ call: Call) {
        let (key, found, forward) = findEntry(call)
        guard let entry = found else { return miss(call, key: key, forward: forward) }
        let now = service.clock()
        let facts = service.storedFacts.facts(of: entry)
        let decision = ServePolicy.decide(
            stored: facts, requestMethod: call.method, requestHeaders: call.headers,
            now: Int64(now.timeIntervalSince1970), overrides: call.decision.overrides)
        switch decision {
        case .fresh(let age, let ttl):
            let status = CacheStatus(cacheName: service.configuration.cacheName, hit: true, ttl: ttl)
            serveStoredOrRefetch(call, key: key, entry: entry, xCache: .hit, age: age, cacheStatus: status)
        case .staleAllowed(let age, _):
            let ttl = facts.freshnessLifetime(overrides: call.decision.overrides).seconds - age
            let status = CacheStatus(cacheName: service.configuration.cacheName, hit: true, ttl: ttl)
            serveStoredOrRefetch(call, key: key, entry: entry, xCache: .hit, age: age, cacheStatus: status)
        case .staleWhileRevalidate(let age, let conditionalHeaders):
            refreshInBackground(call, key: key, entry: entry, conditionalHeaders: conditionalHeaders)
            let ttl = facts.freshnessLifetime(overrides: call.decision.overrides).seconds - age
            let status = CacheStatus(
                cacheName: service.configuration.cacheName, hit: true, ttl: ttl, detail: "stale-while-revalidate")
            serveStoredOrRefetch(call, key: key, entry: entry, xCache: .stale, age: age, cacheStatus: status)
        case .mustRevalidate(let conditionalHeaders, let why):
            let forward: CacheStatus.Forward = why == .stale || why == .mustRevalidateDirective ? .stale : .request
            fetchFromOrigin(call, key: key, stored: entry, conditionalHeaders: conditionalHeaders, forward: forward)
        case .mustFetch(let reason):
            // Without a validator the stale entry can still stand in when the origin fails (RFC 5861 §4);
            // an entry this request may not reuse at all cannot.
            var usable: StoredEntry?
            if case .noValidator = reason {
                // RFC 9111 §4.3.5: a HEAD answers a HEAD, and its answer updates or invalidates the entry.
                if call.method == .head { return forwardHead(call, key: key, stored: entry) }
                usable = entry
            }
            fetchFromOrigin(call, key: key, stored: usable, forward: .stale)
        case .onlyIfCachedMiss:
            sendOnlyIfCachedMiss(call)
        }
    }

    /// Answers a request nothing is stored for: from the origin, or `504` for `only-if-cached`. On the
    /// storage executor after a lookup, or on the connection's queue when the store certainly holds
    /// nothing under the URL (`CacheStore.mayHold(primaryKey:)`).
    func miss(_ call: Call, key: CacheKey, forward: CacheStatus.Forward) {
        if RequestDirectives(headers: call.headers).cacheControl.onlyIfCached { return sendOnlyIfCachedMiss(call) }
        fetchFromOrigin(call, key: key, stored: nil, forward: forward)
    }

    /// The entry to serve for the call's variant, under which key, and why the origin is asked without one.
    /// A store that cannot be read is a miss: the origin answers.
    private func findEntry(_ call: Call) -> (key: CacheKey, entry: StoredEntry?, miss: CacheStatus.Forward) {
        let primary = call.primaryKey
        switch (try? service.store.lookUpToServe(primaryKey: primary)) ?? .uniform(nil) {
        case .uniform(let entry):
            // Without Vary names the key is the primary one, already hashed.
            return (primary, entry, .uriMiss)
        case .varies(let names):
            let key =
                names.isEmpty
                ? primary
                : service.variantKeys.key(
                    primaryKey: primary, url: call.keyURL, names: names, requestHeaders: call.headers)
            return (key, (try? service.store.entryToServe(for: key)) ?? nil, .varyMiss)
        }
    }

    /// Serves a stored entry; when it turns out to be gone (deleted, replaced, or found corrupt and
    /// deleted) the request becomes a miss.
    func serveStoredOrRefetch(
        _ call: Call, key: CacheKey, entry: StoredEntry, xCache: XCache, age: Int64, cacheStatus: CacheStatus
    ) {
        do {
            let response = try makeStoredResponse(
                call, key: key, entry: entry, xCache: xCache, age: age, cacheStatus: cacheStatus)
            call.writer.send(response)
        } catch let error as CacheStoreError {
            switch error {
            case .notFound, .corruptEntryDeleted:
                fetchFromOrigin(call, key: key, stored: nil, forward: .miss)
            case .invalidRange(_, let length):
                call.writer.send(APIError.rangeNotSatisfiable(length: length).makeResponse())
            default:
                call.writer.send(APIError.storage(error).makeResponse())
            }
        } catch let error as APIError {
            call.writer.send(error.makeResponse())
        } catch {
            call.writer.send(APIError(error).makeResponse())
        }
    }

    private func sendOnlyIfCachedMiss(_ call: Call) {
        call.writer.send(
            APIError(
                status: .gatewayTimeout, type: .onlyIfCached,
                detail: "only-if-cached: nothing stored may answer this request (RFC 9111 §5.2.1.7)."
            ).makeResponse())
    }
}
