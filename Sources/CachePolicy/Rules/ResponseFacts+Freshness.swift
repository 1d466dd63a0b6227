internal import HTTPCore

/// Freshness and age of a stored response, [RFC 9111 §4.2](https://www.rfc-editor.org/rfc/rfc9111#section-4.2),
/// as seen by a shared cache.
extension ResponseFacts {
    /// Status codes defined as heuristically cacheable ([RFC 9110 §15.1](https://www.rfc-editor.org/rfc/rfc9110#section-15.1)).
    /// 206 is among them, but Larder never stores partial content (see ``Storability``).
    public static let heuristicallyCacheableStatuses: Set<Int> = [
        200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501,
    ]

    /// Whether the response carries an explicit expiration time: `s-maxage`, `max-age` or `Expires`
    /// in any form, valid or not (§4.2.2 forbids heuristics then); `Expires` does not count when a
    /// targeted field governs (RFC 9213 §2.2).
    public var hasExplicitExpiration: Bool {
        cacheControl.sMaxAge.isPresent || cacheControl.maxAge.isPresent
            || (targetedField == nil && headers.contains("Expires"))
    }

    /// The lifetime the origin gave, or the heuristic one ([RFC 9111 §4.2.1](https://www.rfc-editor.org/rfc/rfc9111#section-4.2.1),
    /// [§4.2.2](https://www.rfc-editor.org/rfc/rfc9111#section-4.2.2)), before any filter override.
    ///
    /// `s-maxage` first, then `max-age`, then `Expires` − `Date` (an unparsable or repeated
    /// `Expires` means already expired; ignored when a targeted field governs, RFC 9213 §2.2); otherwise, for a heuristically cacheable status or a
    /// `public` response with `Last-Modified`, `heuristicPercent` of `Date` − `Last-Modified`, capped
    /// at `heuristicCap`. An invalid or conflicting `s-maxage` / `max-age` makes the response stale
    /// rather than falling through to the next rule.
    ///
    /// - Parameter overrides: Only the heuristic settings are read.
    /// - Returns: The lifetime and its source.
    public func originFreshnessLifetime(overrides: PolicyOverrides = .none) -> FreshnessLifetime {
        if let lifetime = Self.explicitLifetime(cacheControl.sMaxAge, source: .sMaxAge) { return lifetime }
        if let lifetime = Self.explicitLifetime(cacheControl.maxAge, source: .maxAge) { return lifetime }
        let expires = targetedField == nil ? headers.values(for: "Expires") : []
        if !expires.isEmpty {
            // Names in any case (`THU`, `AUG`, `gmt`): RFC 9110 §5.6.7 asks recipients to be robust, and
            // RFC 9111 §5.3 only makes an invalid Expires mean "already expired", which a case slip is not.
            guard expires.count == 1, let date = HTTPDate(expires[0], now: responseTime, ignoringCase: true) else {
                return FreshnessLifetime(seconds: 0, source: .invalid)
            }
            return FreshnessLifetime(seconds: max(0, date.secondsSinceEpoch - dateValue), source: .expires)
        }
        let heuristicAllowed = Self.heuristicallyCacheableStatuses.contains(status) || cacheControl.isPublic
        let lastModified = headers.values(for: "Last-Modified")
        guard heuristicAllowed, lastModified.count == 1,
            let modified = HTTPDate(lastModified[0], now: responseTime)?.secondsSinceEpoch,
            modified <= dateValue
        else { return FreshnessLifetime(seconds: 0, source: .none) }
        let share = (dateValue - modified) * min(max(0, overrides.heuristicPercent), 100) / 100
        return FreshnessLifetime(seconds: min(share, max(0, overrides.heuristicCap)), source: .heuristic)
    }

    /// The lifetime a delta-seconds directive gives, `nil` when absent; an invalid one gives zero.
    private static func explicitLifetime(
        _ directive: CacheControl.DeltaSeconds, source: FreshnessLifetime.Source
    ) -> FreshnessLifetime? {
        switch directive {
        case .absent: nil
        case .seconds(let seconds): FreshnessLifetime(seconds: seconds, source: source)
        case .noArgument, .invalid: FreshnessLifetime(seconds: 0, source: .invalid)
        }
    }

    /// The lifetime the cache uses: the origin's (``originFreshnessLifetime(overrides:)``), replaced
    /// by a filter's `ttl` when given, then clamped to `minTtl`…`maxTtl`; for a purged response
    /// (``staleSince``), at most the age it had when it was purged, so it is stale from then on.
    ///
    /// - Parameter overrides: The filter's overrides and heuristic settings.
    /// - Returns: The lifetime, its source, and whether a clamp applied.
    public func freshnessLifetime(overrides: PolicyOverrides = .none) -> FreshnessLifetime {
        var lifetime =
            overrides.ttl.map { FreshnessLifetime(seconds: max(0, $0), source: .ttlOverride) }
            ?? originFreshnessLifetime(overrides: overrides)
        if let minTtl = overrides.minTtl, lifetime.seconds < minTtl {
            lifetime.seconds = minTtl
            lifetime.isClamped = true
        }
        if let maxTtl = overrides.maxTtl, lifetime.seconds > maxTtl {
            lifetime.seconds = max(0, maxTtl)
            lifetime.isClamped = true
        }
        if let staleSince {
            let ageWhenPurged = currentAge(now: staleSince)
            if lifetime.seconds > ageWhenPurged {
                lifetime = FreshnessLifetime(seconds: max(0, ageWhenPurged), source: .purged)
            }
        }
        return lifetime
    }

    /// The current age, and how far past its freshness lifetime that is (0 while fresh): what every
    /// rule that serves stale (`stale-if-error`, serving while disconnected) weighs against its window.
    ///
    /// - Parameters:
    ///   - now: The current time, in seconds since the epoch.
    ///   - overrides: The owning filter's overrides of the lifetime.
    /// - Returns: Both in seconds, never negative.
    public func staleness(now: Int64, overrides: PolicyOverrides) -> (age: Int64, staleness: Int64) {
        let age = currentAge(now: now)
        return (age, max(0, age - freshnessLifetime(overrides: overrides).seconds))
    }

    /// `current_age` of [RFC 9111 §4.2.3](https://www.rfc-editor.org/rfc/rfc9111#section-4.2.3):
    /// the larger of the apparent age (`response_time − date_value`) and the corrected `Age`
    /// (`age_value + response_delay`), plus the time resident in this cache.
    ///
    /// - Parameter now: The current time, in seconds since the epoch.
    /// - Returns: The age in seconds, never negative.
    public func currentAge(now: Int64) -> Int64 {
        let apparentAge = max(0, responseTime - dateValue)
        let responseDelay = max(0, responseTime - requestTime)
        let correctedAgeValue = ageValue + responseDelay
        let correctedInitialAge = max(apparentAge, correctedAgeValue)
        let residentTime = max(0, now - responseTime)
        return correctedInitialAge + residentTime
    }

    /// Whether the response is fresh at `now`: its lifetime exceeds its current age (§4.2).
    ///
    /// - Parameters:
    ///   - now: The current time, in seconds since the epoch.
    ///   - overrides: The filter's overrides and heuristic settings.
    /// - Returns: `true` while `freshness_lifetime > current_age`.
    public func isFresh(now: Int64, overrides: PolicyOverrides = .none) -> Bool {
        freshnessLifetime(overrides: overrides).seconds > currentAge(now: now)
    }

    /// The value of the `Age` field to send with this response at `now` (§5.1), clamped to 2^31.
    ///
    /// - Parameter now: The current time, in seconds since the epoch.
    /// - Returns: Decimal seconds.
    public func ageFieldValue(now: Int64) -> String {
        String(min(currentAge(now: now), CacheControl.maximumDeltaSeconds))
    }
}
