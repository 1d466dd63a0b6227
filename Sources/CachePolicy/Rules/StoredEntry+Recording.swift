public import CacheCore
public import FoundationEssentials
public import HTTPCore

/// How a fetched response becomes a stored entry, and how a 304 freshens one
/// ([RFC 9111 §3](https://www.rfc-editor.org/rfc/rfc9111#section-3),
/// [§4.3.4](https://www.rfc-editor.org/rfc/rfc9111#section-4.3.4)): its key, its lifetime and how long
/// it is kept past expiry, all decided here so that the fetch path only records what came.
extension StoredEntry {
    /// What decides an entry's lifetime besides its response.
    public struct Lifetimes: Sendable, Equatable {
        /// The owning filter's overrides of the response's own directives.
        public var overrides: PolicyOverrides
        /// `--stale-if-disconnected`, in seconds (the filter may override it).
        public var staleIfDisconnected: Int64
        /// How long an expired entry with a validator is kept for revalidation, in seconds.
        public var revalidationAllowance: Double
        /// The targeted cache-control fields this cache obeys (RFC 9213): which of the response's fields
        /// govern its lifetime.
        public var targets: TargetedCacheControl

        /// - Parameters:
        ///   - overrides: the owning filter's overrides.
        ///   - staleIfDisconnected: `--stale-if-disconnected`, in seconds.
        ///   - revalidationAllowance: how long an expired entry with a validator is kept, in seconds.
        ///   - targets: the configured target list.
        public init(
            overrides: PolicyOverrides, staleIfDisconnected: Int64, revalidationAllowance: Double,
            targets: TargetedCacheControl
        ) {
            self.overrides = overrides
            self.staleIfDisconnected = staleIfDisconnected
            self.revalidationAllowance = revalidationAllowance
            self.targets = targets
        }
    }

    /// The RFC 9111 facts of a stored entry (its clock readings in whole seconds), read with a cache's
    /// target list: the same stored headers govern differently in caches that obey different fields.
    /// - Parameter targets: the targeted cache-control fields the reading cache obeys.
    /// - Returns: the facts.
    public func facts(targets: TargetedCacheControl) -> ResponseFacts {
        ResponseFacts(
            requestMethod: .get, status: status.code, headers: headers,
            requestTime: Int64(requestTime.timeIntervalSince1970.rounded(.down)),
            responseTime: Int64(responseTime.timeIntervalSince1970.rounded(.down)),
            staleSince: staleSince.map { Int64($0.timeIntervalSince1970.rounded(.down)) }, targets: targets)
    }

    /// The entry to store for a fetched response (the store fills in the body's facts).
    /// - Parameters:
    ///   - status: the response's status.
    ///   - headers: its header section (only the storable fields are kept: ``HeaderFilter``).
    ///   - url: the canonical URL it is stored under.
    ///   - requestHeaders: the request that fetched it (they pick its `Vary` variant's key).
    ///   - requestTime: when the request was sent.
    ///   - responseTime: when the response head arrived.
    ///   - filterName: the owning filter.
    ///   - imageFormat: the sniffed image format, for a validated image.
    ///   - lifetimes: what decides how long it is fresh and kept.
    ///   - varyNames: the names its `Vary` lists (``Vary/names(in:)``), read once by the caller.
    ///   - facts: the response's facts when the caller read them already (the fetch path does, when the head
    ///     arrives: a sniffed `Content-Type` put in `headers` since changes none of them); `nil` reads them
    ///     here.
    public static func recording(
        status: HTTPStatus, headers: HTTPHeaders, url: String, requestHeaders: HTTPHeaders, requestTime: Date,
        responseTime: Date, filterName: String?, imageFormat: String?, lifetimes: Lifetimes, varyNames: [String],
        facts: ResponseFacts? = nil
    ) -> StoredEntry {
        let facts =
            facts
            ?? ResponseFacts(
                status: status.code, headers: headers, requestTime: Int64(requestTime.timeIntervalSince1970),
                responseTime: Int64(responseTime.timeIntervalSince1970), targets: lifetimes.targets)
        return StoredEntry(
            key: CacheKey.variant(canonicalURL: url, varyNames: varyNames, requestHeaders: requestHeaders), url: url,
            status: status, headers: HeaderFilter.storable(headers), varyNames: varyNames, requestTime: requestTime,
            responseTime: responseTime, date: Self.date(in: headers), ageReceived: Int(facts.ageValue),
            freshnessLifetime: Double(facts.freshnessLifetime(overrides: lifetimes.overrides).seconds),
            staleAllowance: staleAllowance(facts, lifetimes), filterName: filterName, imageFormat: imageFormat)
    }

    /// The entry freshened by the origin's 304 to a conditional request (§4.3.4): its fields merged, its
    /// clock readings and lifetime renewed; the sniffed `Content-Type` of a validated image kept.
    /// - Returns: the entry to store, or `nil` when the 304 names another representation (its strong
    ///   validator differs), which must not freshen this one.
    public func freshened(
        by notModified: HTTPHeaders, requestTime: Date, responseTime: Date, lifetimes: Lifetimes
    ) -> StoredEntry? {
        guard
            let fresh = Revalidation.freshen(
                stored: facts(targets: lifetimes.targets), notModified: notModified,
                requestTime: Int64(requestTime.timeIntervalSince1970),
                responseTime: Int64(responseTime.timeIntervalSince1970))
        else { return nil }
        var entry = self
        entry.headers = fresh.headers
        if declaredContentType != nil, let served = contentType {
            // A 304 repeating the origin's label must not undo the sniffed type.
            entry.headers.replaceOrAdd(name: "Content-Type", value: served)
        }
        entry.requestTime = requestTime
        entry.responseTime = responseTime
        entry.date = Self.date(in: fresh.headers)
        entry.ageReceived = Int(fresh.ageValue)
        entry.freshnessLifetime = Double(fresh.freshnessLifetime(overrides: lifetimes.overrides).seconds)
        entry.staleAllowance = Self.staleAllowance(fresh, lifetimes)
        return entry
    }

    /// How long past expiry an entry is kept: the longest window that could still serve it stale
    /// (`stale-if-error`, `stale-while-revalidate`, answering when disconnected), or long enough to
    /// revalidate when it has a validator.
    static func staleAllowance(_ facts: ResponseFacts, _ lifetimes: Lifetimes) -> Double {
        let control = facts.cacheControl
        let overrides = lifetimes.overrides
        let disconnected = StaleIfDisconnected.window(setting: lifetimes.staleIfDisconnected, overrides: overrides)
        // Compared in turn, not gathered in an array: this runs for every stored miss.
        let window = Double(
            max(
                control.staleIfError.value ?? 0, control.staleWhileRevalidate.value ?? 0, overrides.staleIfError ?? 0,
                overrides.staleWhileRevalidate ?? 0, StaleIfDisconnected.allowance(for: facts, window: disconnected), 0)
        )
        return Revalidation.hasValidator(facts) ? max(window, lifetimes.revalidationAllowance) : window
    }

    /// The response's `Date`, when it parses.
    private static func date(in headers: HTTPHeaders) -> Date? {
        headers["Date"].flatMap { HTTPDate($0) }.map { Date(timeIntervalSince1970: Double($0.secondsSinceEpoch)) }
    }
}
