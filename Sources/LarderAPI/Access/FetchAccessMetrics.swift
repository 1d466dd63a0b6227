public import Metrics

/// `/fetch` requests refused by `FetchAccess`, by reason (`larder_fetch_refusals_total`). Registered
/// whether or not access control is on, so that dashboards find the family at 0.
public final class FetchAccessMetrics: MetricsSource {
    private let refusals = AtomicCounters(count: FetchRefusal.Reason.allCases.count)

    /// Creates the counters, all at 0.
    public init() {}

    /// Counts one refusal.
    /// - Parameter reason: why.
    public func refused(_ reason: FetchRefusal.Reason) {
        refusals.add(1, at: reason.rawValue)
    }

    /// Refusals counted for a reason.
    /// - Parameter reason: the reason.
    /// - Returns: the count.
    public func refusalCount(_ reason: FetchRefusal.Reason) -> Int { refusals.value(at: reason.rawValue) }

    /// Writes `larder_fetch_refusals_total`.
    /// - Parameter text: the exposition being built.
    public func write(to text: inout PrometheusText) {
        text.family(
            "larder_fetch_refusals_total", type: .counter,
            help: "/fetch requests refused by --url-signing-key or --fetch-token (403), by reason.", label: "reason",
            values: refusals.samples(by: FetchRefusal.Reason.self))
    }
}

extension FetchRefusal.Reason: MetricLabelValue {}
