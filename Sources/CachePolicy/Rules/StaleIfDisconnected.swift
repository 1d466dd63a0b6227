public import HTTPCore

/// Serving a stale response when the cache is disconnected from the origin,
/// [RFC 9111 §4.2.4](https://www.rfc-editor.org/rfc/rfc9111#section-4.2.4).
///
/// "Disconnected" is decided by the fetch path: no DNS answer, no connection, a failed TLS handshake,
/// or a timeout or closed connection before a response head. A 5xx is an answer, not a disconnection:
/// that stays ``StaleIfError``'s. The window is a setting (`--stale-if-disconnected`), which the owning
/// filter's `staleIfDisconnected` replaces; 0 turns it off. Like ``StaleIfError`` it never beats
/// `must-revalidate`, `proxy-revalidate`, `s-maxage` or a response `no-cache` (RFC 9111 §4.2.4: a cache
/// must not serve stale when an explicit directive forbids it).
public enum StaleIfDisconnected {
    /// The outcome.
    public enum Decision: Sendable, Equatable {
        /// Serve the stored response, marked stale: its age, its staleness and the window that applied.
        case serveStale(age: Int64, staleness: Int64, window: Int64)
        /// Do not; pass the failure on.
        case doNotServe(Refusal)
    }

    /// Why a stale response is not served when disconnected.
    public enum Refusal: Sendable, Equatable {
        /// The stored response may not answer this request at all (method, `Authorization`).
        case notReusable(ServeDecision.FetchReason)
        /// `must-revalidate`, `proxy-revalidate`, `s-maxage` or `no-cache` forbids it.
        case revalidationRequired
        /// The window is 0: the setting or the filter turned it off.
        case off
        /// The response is `staleness` seconds stale, past the `window`.
        case tooStale(staleness: Int64, window: Int64)
    }

    /// The window that applies: the filter's `staleIfDisconnected` when it sets one, else the setting.
    ///
    /// - Parameters:
    ///   - setting: `--stale-if-disconnected`, in seconds.
    ///   - overrides: The owning filter's overrides, or ``PolicyOverrides/none``.
    /// - Returns: The window in seconds, 0 for none.
    public static func window(setting: Int64, overrides: PolicyOverrides) -> Int64 {
        max(0, overrides.staleIfDisconnected ?? setting)
    }

    /// How long past expiry a response must be kept so that it can answer when disconnected: the window,
    /// or 0 when its directives forbid serving it stale.
    ///
    /// - Parameters:
    ///   - stored: The response about to be stored.
    ///   - window: The window that applies (``window(setting:overrides:)``).
    /// - Returns: Seconds past expiry.
    public static func allowance(for stored: ResponseFacts, window: Int64) -> Int64 {
        ServePolicy.forbidsStaleOnFailure(stored.cacheControl) ? 0 : max(0, window)
    }

    /// Decides whether a stored response answers when the origin cannot be reached.
    ///
    /// - Parameters:
    ///   - stored: The stored response.
    ///   - requestMethod: The caller's method.
    ///   - requestHeaders: The caller's request header section.
    ///   - now: The current time, in seconds since the epoch.
    ///   - window: The window that applies (``window(setting:overrides:)``).
    ///   - overrides: The owning filter's overrides (freshness), or ``PolicyOverrides/none``.
    /// - Returns: The decision.
    public static func decide(
        stored: ResponseFacts,
        requestMethod: HTTPMethod,
        requestHeaders: HTTPHeaders,
        now: Int64,
        window: Int64,
        overrides: PolicyOverrides = .none
    ) -> Decision {
        if let refusal = ServePolicy.reuseRefusal(
            stored: stored, requestMethod: requestMethod, requestHeaders: requestHeaders)
        {
            return .doNotServe(.notReusable(refusal))
        }
        if ServePolicy.forbidsStaleOnFailure(stored.cacheControl) { return .doNotServe(.revalidationRequired) }
        guard window > 0 else { return .doNotServe(.off) }
        let (age, staleness) = stored.staleness(now: now, overrides: overrides)
        guard staleness <= window else { return .doNotServe(.tooStale(staleness: staleness, window: window)) }
        return .serveStale(age: age, staleness: staleness, window: window)
    }
}
