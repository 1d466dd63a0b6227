public import HTTPCore

/// The storage rules of a shared cache, [RFC 9111 §3](https://www.rfc-editor.org/rfc/rfc9111#section-3).
///
/// The first valid targeted field on the target list (`CDN-Cache-Control`, RFC 9213) stands in for the
/// response's `Cache-Control` and `Expires` in every rule below (``TargetedCacheControl``).
///
/// Larder's own choices, where the RFC leaves room:
/// - **206 is never stored**: Larder keeps whole representations and answers `Range` from them.
/// - **`private` in any form refuses storage.** The RFC lets a shared cache store a `private="f"`
///   response with field `f` removed; Larder does not take that option.
/// - **`Set-Cookie` refuses storage**, whatever else the response says. RFC 9111 allows storing it,
///   but a shared cache replaying one caller's cookie to every other caller leaks sessions; nginx
///   `proxy_cache` and Varnish's default make the same choice. A later filter option may store such
///   responses with the field stripped.
/// - **`no-cache` responses are stored**; the serving rules revalidate them on every use.
/// - **`HEAD` responses are stored** but only answer later `HEAD` requests (``ServePolicy``).
/// - **`must-understand`**: Larder understands the statuses it stores (200, 203, 204, 300, 301,
///   302, 303, 307, 308, 404, 405, 410, 414, 501); with the directive, those ignore `no-store`.
/// - **A filter's `ignoreNoStore`** lifts the response's `no-store` (§5.2.2.5) and nothing else: the
///   caller's own request `no-store` (§5.2.1.5) still wins, and `private` (§5.2.2.7), `Authorization`
///   (§3.5), `Vary: *` and `Set-Cookie` still refuse, because those protect one caller's data from the
///   others rather than the origin's wish not to be kept. `Pragma: no-cache` is a request field with no
///   defined meaning in a response (§5.4) and never refused storage, with or without the option.
public enum Storability {
    /// Status codes Larder knows the caching semantics of, for `must-understand` (§5.2.2.3).
    public static let understoodStatuses: Set<Int> = [
        200, 203, 204, 300, 301, 302, 303, 307, 308, 404, 405, 410, 414, 501,
    ]

    /// Decides whether a response may be stored by a shared cache, on its facts (the fetch path reads them
    /// once when the head arrives, for this and the entry it records).
    ///
    /// - Parameters:
    ///   - requestMethod: The method of the request the response answers.
    ///   - requestHeaders: The request as sent to the origin (for `no-store` and `Authorization`).
    ///   - facts: The response's status, fields and governing directives, read with the targeted
    ///     cache-control fields this cache obeys: the first valid one replaces the response's
    ///     `Cache-Control` and `Expires` (RFC 9213 §2.2).
    ///   - ignoringResponseNoStore: Whether the owning filter set `ignoreNoStore`: the response's
    ///     `no-store` is then not a reason to refuse.
    /// - Returns: `.store`, or `.doNotStore` with the first rule that refused.
    public static func evaluate(
        requestMethod: HTTPMethod, requestHeaders: HTTPHeaders, facts: ResponseFacts,
        ignoringResponseNoStore: Bool = false
    ) -> StorabilityDecision {
        let status = facts.status
        let responseHeaders = facts.headers
        let response = facts.cacheControl
        guard requestMethod == .get || requestMethod == .head else { return .doNotStore(.methodNotCacheable) }
        guard (200...599).contains(status) else { return .doNotStore(.statusNotFinal) }
        if status == 206 { return .doNotStore(.partialContent) }
        if status == 304 { return .doNotStore(.notModified) }
        let request = CacheControl(headers: requestHeaders)
        if request.noStore { return .doNotStore(.requestNoStore) }
        if response.mustUnderstand {
            // §5.2.2.3: with must-understand, an understood status overrides no-store.
            guard understoodStatuses.contains(status) else { return .doNotStore(.statusNotUnderstood) }
        } else if response.noStore && !ignoringResponseNoStore {
            return .doNotStore(.responseNoStore)
        }
        if response.isPrivate { return .doNotStore(.privateResponse) }
        if requestHeaders.contains("Authorization")
            && !(response.isPublic || response.sMaxAge.isPresent || response.mustRevalidate)
        {
            return .doNotStore(.authorization)
        }
        if Vary.listsAny(in: responseHeaders) { return .doNotStore(.varyAny) }
        if responseHeaders.contains("Set-Cookie") { return .doNotStore(.setCookie) }

        let explicitlyCacheable =
            response.isPublic || response.maxAge.isPresent || response.sMaxAge.isPresent
            || (facts.targetedField == nil && responseHeaders.contains("Expires"))
        guard explicitlyCacheable || ResponseFacts.heuristicallyCacheableStatuses.contains(status) else {
            return .doNotStore(.noFreshnessInformation)
        }
        return .store
    }

    /// ``evaluate(requestMethod:requestHeaders:facts:ignoringResponseNoStore:)`` on a response's status and
    /// fields.
    /// - Parameters:
    ///   - requestMethod: The method of the request the response answers.
    ///   - requestHeaders: The request as sent to the origin.
    ///   - status: The response status code.
    ///   - responseHeaders: The response header section.
    ///   - ignoringResponseNoStore: Whether the owning filter set `ignoreNoStore`.
    ///   - targets: The targeted cache-control fields this cache obeys.
    /// - Returns: `.store`, or `.doNotStore` with the first rule that refused.
    public static func evaluate(
        requestMethod: HTTPMethod, requestHeaders: HTTPHeaders, status: Int, responseHeaders: HTTPHeaders,
        ignoringResponseNoStore: Bool = false, targets: TargetedCacheControl
    ) -> StorabilityDecision {
        let facts = ResponseFacts(
            status: status, headers: responseHeaders, requestTime: 0, responseTime: 0, targets: targets)
        return evaluate(
            requestMethod: requestMethod, requestHeaders: requestHeaders, facts: facts,
            ignoringResponseNoStore: ignoringResponseNoStore)
    }
}
