public import HTTPCore

/// Whether a stored response may answer a request,
/// [RFC 9111 §4](https://www.rfc-editor.org/rfc/rfc9111#section-4) for a shared cache, with
/// [RFC 5861](https://www.rfc-editor.org/rfc/rfc5861) `stale-while-revalidate`.
///
/// The caller has already matched the URL and `Vary` (the cache key covers both). The checks run in
/// this order: method; `Authorization` (§3.5); `no-cache` in the response, then in the request;
/// the request's `max-age`; then freshness against the request's `min-fresh`; for a stale response,
/// `must-revalidate` / `proxy-revalidate` / `s-maxage` (never stale, whatever the request says),
/// then the request's `max-stale`, then the `stale-while-revalidate` window (the response's or the
/// filter's, whichever is longer). With `only-if-cached`, every outcome that needs the origin before
/// answering becomes ``ServeDecision/onlyIfCachedMiss``.
public enum ServePolicy {
    /// Decides how a stored response may be used for a request.
    ///
    /// - Parameters:
    ///   - stored: The stored response.
    ///   - requestMethod: The caller's method.
    ///   - requestHeaders: The caller's request header section.
    ///   - now: The current time, in seconds since the epoch.
    ///   - overrides: The owning filter's overrides, or ``PolicyOverrides/none``.
    /// - Returns: The decision, with the age to report and, for validation, the conditional fields.
    public static func decide(
        stored: ResponseFacts,
        requestMethod: HTTPMethod,
        requestHeaders: HTTPHeaders,
        now: Int64,
        overrides: PolicyOverrides = .none
    ) -> ServeDecision {
        let request = RequestDirectives(headers: requestHeaders)
        let onlyIfCached = request.cacheControl.onlyIfCached
        if let refusal = reuseRefusal(stored: stored, requestMethod: requestMethod, requestHeaders: requestHeaders) {
            return onlyIfCached ? .onlyIfCachedMiss : .mustFetch(refusal)
        }

        let age = stored.currentAge(now: now)
        let lifetime = stored.freshnessLifetime(overrides: overrides).seconds
        let response = stored.cacheControl
        let reason: ServeDecision.RevalidationReason
        if response.noCache {
            reason = .responseNoCache
        } else if request.noCache {
            reason = .requestNoCache
        } else if exceeds(age, request.cacheControl.maxAge) {
            reason = .requestMaxAge
        } else if lifetime > age {
            if exceeds(request.cacheControl.minFresh, lifetime - age) {
                reason = .requestMinFresh
            } else {
                return .fresh(age: age, ttl: lifetime - age)
            }
        } else if forbidsStale(response) {
            reason = .mustRevalidateDirective
        } else {
            let staleness = age - lifetime
            switch request.cacheControl.maxStale {
            case .noArgument: return .staleAllowed(age: age, why: .maxStale)
            case .seconds(let limit) where staleness <= limit: return .staleAllowed(age: age, why: .maxStale)
            default: break
            }
            let window = max(response.staleWhileRevalidate.value ?? -1, overrides.staleWhileRevalidate ?? -1)
            if staleness <= window {
                return .staleWhileRevalidate(age: age, conditionalHeaders: Revalidation.conditionalHeaders(for: stored))
            }
            reason = .stale
        }

        if onlyIfCached { return .onlyIfCachedMiss }
        let conditional = Revalidation.conditionalHeaders(for: stored)
        return conditional.isEmpty
            ? .mustFetch(.noValidator(reason)) : .mustRevalidate(conditionalHeaders: conditional, why: reason)
    }

    /// Whether the response forbids a shared cache to serve it stale: `must-revalidate`,
    /// `proxy-revalidate`, or `s-maxage` (which carries proxy-revalidate, §5.2.2.10).
    ///
    /// - Parameter response: The stored response's directives.
    /// - Returns: `true` when stale service needs successful validation first.
    public static func forbidsStale(_ response: CacheControl) -> Bool {
        response.mustRevalidate || response.proxyRevalidate || response.sMaxAge.isPresent
    }

    /// Whether the response may never answer stale when the origin fails or is gone (`stale-if-error`,
    /// serving while disconnected): ``forbidsStale(_:)``, or `no-cache`, which asks for validation on
    /// every use.
    public static func forbidsStaleOnFailure(_ response: CacheControl) -> Bool {
        forbidsStale(response) || response.noCache
    }

    /// The reason a stored response can never answer this request, or `nil` when it may (method and
    /// §3.5 `Authorization`).
    ///
    /// - Parameters:
    ///   - stored: The stored response.
    ///   - requestMethod: The caller's method.
    ///   - requestHeaders: The caller's request header section.
    /// - Returns: The refusal, or `nil`.
    public static func reuseRefusal(
        stored: ResponseFacts,
        requestMethod: HTTPMethod,
        requestHeaders: HTTPHeaders
    ) -> ServeDecision.FetchReason? {
        guard requestMethod == .get || requestMethod == .head else { return .methodNotCacheable }
        if requestMethod == .get && stored.requestMethod != .get { return .storedResponseIsHead }
        let response = stored.cacheControl
        if requestHeaders.contains("Authorization")
            && !(response.isPublic || response.sMaxAge.isPresent || response.mustRevalidate)
        {
            return .authorization
        }
        return nil
    }

    /// Whether `value` is over a request limit; an invalid or argument-less limit always is (the
    /// most restrictive reading, §4.2.1).
    private static func exceeds(_ value: Int64, _ limit: CacheControl.DeltaSeconds) -> Bool {
        switch limit {
        case .absent: false
        case .seconds(let seconds): value > seconds
        case .noArgument, .invalid: true
        }
    }

    /// Whether the request's `min-fresh` asks for more freshness than is left.
    private static func exceeds(_ minFresh: CacheControl.DeltaSeconds, _ freshnessLeft: Int64) -> Bool {
        switch minFresh {
        case .absent: false
        case .seconds(let seconds): freshnessLeft < seconds
        case .noArgument, .invalid: true
        }
    }
}
