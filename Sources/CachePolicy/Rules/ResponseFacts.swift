public import HTTPCore

/// What the RFC 9111 rules need to know about one stored (or about to be stored) response: its
/// status, its header section, and the clock readings around the exchange that produced it.
///
/// Times are whole seconds since the Unix epoch, read by the caller (the policy never reads the
/// clock). `requestTime` is when the request that produced the response was sent and
/// `responseTime` when the response was received ([RFC 9111 §4.2.3](https://www.rfc-editor.org/rfc/rfc9111#section-4.2.3)).
/// The header fields the freshness rules read are parsed once, here: on the hit path, build the facts
/// when an entry is stored or first read and keep them with it, so a hit costs only the decision.
public struct ResponseFacts: Sendable, Equatable {
    /// The method of the request that produced the response (`GET` or `HEAD` for a stored one).
    public let requestMethod: HTTPMethod
    /// The status code.
    public let status: Int
    /// The response header section as stored.
    public let headers: HTTPHeaders
    /// When the request was sent, in seconds since the epoch.
    public let requestTime: Int64
    /// When the response was received, in seconds since the epoch.
    public let responseTime: Int64
    /// The directives that govern this cache: those of the first valid targeted field on ``targets``
    /// (RFC 9213, e.g. `CDN-Cache-Control`), else the response's `Cache-Control`.
    public let cacheControl: CacheControl
    /// The targeted field ``cacheControl`` came from, `nil` when it is `Cache-Control`; `Expires` is
    /// ignored when one governs (RFC 9213 §2.2).
    public let targetedField: String?
    /// The target list the facts were read with.
    public let targets: TargetedCacheControl
    /// `date_value` of RFC 9111 §4.2.3: the `Date` field, or `responseTime` when it is absent or
    /// invalid (RFC 9110 §6.6.1 has a recipient supply a missing one with its receive time).
    public let dateValue: Int64
    /// `age_value` of RFC 9111 §4.2.3: the first member of `Age`, 0 when absent or invalid (§5.1).
    public let ageValue: Int64
    /// When a purge made the stored response stale (`StoredEntry.staleSince`), in seconds since the
    /// epoch: its freshness lifetime is cut to the age it had then, so it is never fresh afterwards.
    public let staleSince: Int64?

    /// Creates the facts and parses the fields the rules read.
    ///
    /// - Parameters:
    ///   - requestMethod: The method the response answered.
    ///   - status: The status code.
    ///   - headers: The response header section.
    ///   - requestTime: When the request was sent (epoch seconds).
    ///   - responseTime: When the response was received (epoch seconds).
    ///   - staleSince: When a purge made it stale (epoch seconds), `nil` when none did.
    ///   - targets: The targeted cache-control fields this cache obeys (its configured list).
    public init(
        requestMethod: HTTPMethod = .get,
        status: Int,
        headers: HTTPHeaders,
        requestTime: Int64,
        responseTime: Int64,
        staleSince: Int64? = nil,
        targets: TargetedCacheControl
    ) {
        self.requestMethod = requestMethod
        self.staleSince = staleSince
        self.status = status
        self.headers = headers
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.targets = targets
        if let governing = targets.governingDirectives(in: headers) {
            self.cacheControl = governing.control
            self.targetedField = governing.fieldName
        } else {
            self.cacheControl = CacheControl(headers: headers)
            self.targetedField = nil
        }
        let dates = headers.values(for: "Date")
        if dates.count == 1, let date = HTTPDate(dates[0], now: responseTime) {
            self.dateValue = date.secondsSinceEpoch
        } else {
            self.dateValue = responseTime
        }
        // §5.1: a list-valued Age uses its first member; an invalid one is ignored.
        let firstAge = headers["Age"].map { $0.prefix { $0 != "," }.trimmingHTTPWhitespace() }
        self.ageValue = firstAge.flatMap(CacheControl.parseDeltaSeconds) ?? 0
    }

    /// The facts with another header section (after a 304 merge) and the clock readings of the
    /// exchange that refreshed it ([RFC 9111 §4.3.4](https://www.rfc-editor.org/rfc/rfc9111#section-4.3.4)).
    ///
    /// - Parameters:
    ///   - headers: The updated header section.
    ///   - requestTime: When the validation request was sent.
    ///   - responseTime: When the validation response was received.
    /// - Returns: New facts with the same method and status.
    public func refreshed(headers: HTTPHeaders, requestTime: Int64, responseTime: Int64) -> ResponseFacts {
        ResponseFacts(
            requestMethod: requestMethod, status: status, headers: headers,
            requestTime: requestTime, responseTime: responseTime, targets: targets)
    }
}
