public import HTTPCore

/// Serving a stale response when the origin fails,
/// [RFC 5861 §4](https://www.rfc-editor.org/rfc/rfc5861#section-4).
///
/// An error is an unreachable origin or a 500, 502, 503 or 504 answer (RFC 5861 §4). The window is
/// the longest of the response's `stale-if-error`, the request's and the filter's. It never beats
/// `must-revalidate`, `proxy-revalidate`, `s-maxage` or a response `no-cache`: RFC 9111 §5.2.2.2
/// requires an error rather than a stale response when such a response cannot be validated.
public enum StaleIfError {
    /// How the origin failed.
    public enum OriginFailure: Sendable, Equatable {
        /// No response: connection refused, DNS failure, timeout, reset.
        case unreachable
        /// The origin answered with this status.
        case status(Int)
    }

    /// The outcome.
    public enum Decision: Sendable, Equatable {
        /// Serve the stored response, marked stale. `window` is the allowance that applied.
        case serveStale(age: Int64, window: Int64)
        /// Do not; pass the failure on.
        case doNotServe(Refusal)
    }

    /// Why a stale response is not served on error.
    public enum Refusal: Sendable, Equatable {
        /// The origin's status is not an error in RFC 5861's sense; relay it.
        case notAnError
        /// The stored response may not answer this request at all (method, `Authorization`).
        case notReusable(ServeDecision.FetchReason)
        /// `must-revalidate`, `proxy-revalidate`, `s-maxage` or `no-cache` forbids it.
        case revalidationRequired
        /// No `stale-if-error` in the response, the request or the filter.
        case noWindow
        /// The response is `staleness` seconds stale, past the `window`.
        case tooStale(staleness: Int64, window: Int64)
    }

    /// Statuses RFC 5861 §4 counts as errors.
    public static let errorStatuses: Set<Int> = [500, 502, 503, 504]

    /// Decides whether a stored response answers when the origin failed.
    ///
    /// - Parameters:
    ///   - stored: The stored response.
    ///   - requestMethod: The caller's method.
    ///   - requestHeaders: The caller's request header section.
    ///   - failure: How the origin failed.
    ///   - now: The current time, in seconds since the epoch.
    ///   - overrides: The owning filter's overrides, or ``PolicyOverrides/none``.
    /// - Returns: The decision.
    public static func decide(
        stored: ResponseFacts,
        requestMethod: HTTPMethod,
        requestHeaders: HTTPHeaders,
        failure: OriginFailure,
        now: Int64,
        overrides: PolicyOverrides = .none
    ) -> Decision {
        if case .status(let status) = failure, !errorStatuses.contains(status) { return .doNotServe(.notAnError) }
        if let refusal = ServePolicy.reuseRefusal(
            stored: stored, requestMethod: requestMethod, requestHeaders: requestHeaders)
        {
            return .doNotServe(.notReusable(refusal))
        }
        let response = stored.cacheControl
        if ServePolicy.forbidsStaleOnFailure(response) { return .doNotServe(.revalidationRequired) }
        let request = CacheControl(headers: requestHeaders)
        let windows = [response.staleIfError.value, request.staleIfError.value, overrides.staleIfError].compactMap {
            $0
        }
        guard let window = windows.max() else { return .doNotServe(.noWindow) }
        let (age, staleness) = stored.staleness(now: now, overrides: overrides)
        guard staleness <= window else { return .doNotServe(.tooStale(staleness: staleness, window: window)) }
        return .serveStale(age: age, window: window)
    }
}
