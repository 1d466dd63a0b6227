public import HTTPCore

extension FilterChain {
    /// Explains how the chain decides a request: each filter in order with the condition that failed,
    /// `owns` for the first that holds, `not reached` after it, and the decision.
    ///
    /// - Parameters:
    ///   - url: The target URL, canonicalized with default options.
    ///   - method: The request's method, GET unless given.
    ///   - headers: The caller's request headers.
    /// - Returns: The explanation; its decision equals ``decide(url:method:headers:)``'s.
    public func explain(url: CanonicalURL, method: HTTPMethod = .get, headers: HTTPHeaders) -> FilterExplanation {
        var steps: [FilterExplanation.Step] = []
        var decision: FilterDecision?
        for matcher in matchers {
            if decision != nil {
                steps.append(.init(filter: matcher.definition.name, failed: nil, notReached: true))
                continue
            }
            let failure = matcher.firstFailure(url: url, method: method, headers: headers)
            steps.append(.init(filter: matcher.definition.name, failed: failure, notReached: false))
            if failure == nil { decision = matcher.decision }
        }
        return FilterExplanation(steps: steps, decision: decision ?? defaultPolicy.decision)
    }

    /// In words, the freshness rule a decision applies (RFC 9111 §4.2.1 with the filter's overrides), for
    /// `/filters/explain`: e.g. `ttl 604800 s overrides the origin`, or
    /// `origin headers (s-maxage, max-age, Expires, else 10% heuristic capped at 86400 s), clamped to 60...3600 s`.
    ///
    /// - Parameter decision: The decision.
    /// - Returns: One line of text.
    public static func freshnessRule(of decision: FilterDecision) -> String {
        if decision.action == .bypass { return "not stored (bypass)" }
        if decision.action == .deny { return "not fetched (deny)" }
        let overrides = decision.overrides
        var parts: [String] = []
        if let ttl = overrides.ttl {
            parts.append("ttl \(ttl) s overrides the origin's freshness")
        } else {
            parts.append(
                "origin headers (s-maxage, max-age, Expires, else \(overrides.heuristicPercent)% heuristic "
                    + "capped at \(overrides.heuristicCap) s)")
        }
        switch (overrides.minTtl, overrides.maxTtl) {
        case (let low?, let high?): parts.append("clamped to \(low)...\(high) s")
        case (let low?, nil): parts.append("at least \(low) s")
        case (nil, let high?): parts.append("at most \(high) s")
        case (nil, nil): break
        }
        if let seconds = overrides.staleIfError { parts.append("stale-if-error \(seconds) s") }
        if let seconds = overrides.staleWhileRevalidate { parts.append("stale-while-revalidate \(seconds) s") }
        if let seconds = overrides.staleIfDisconnected { parts.append("stale-if-disconnected \(seconds) s") }
        parts.append(decision.ignoreNoStore ? "origin no-store ignored" : "origin no-store wins")
        return parts.joined(separator: ", ")
    }
}
