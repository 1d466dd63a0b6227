public import CacheCore
public import Metrics

/// Purges for `/metrics`: how many ran of each kind (`all`, `url`, `tag`, `host`, `prefix`, `mixed`),
/// and how many entries they deleted or marked stale. Dry runs are not counted.
public final class PurgeMetrics: MetricsSource {
    private typealias Kind = CachePurgeScope.Kind

    private let purges = AtomicCounters(count: Kind.allCases.count * 2)
    private let entries = AtomicCounters(count: Kind.allCases.count * 2)

    /// Creates the counters at 0.
    public init() {}

    /// Counts one purge.
    /// - Parameters:
    ///   - kind: `CachePurgeScope.kind`.
    ///   - entries: how many entries it deleted or marked.
    ///   - soft: whether it marked them stale.
    public func purged(kind: CachePurgeScope.Kind, entries count: Int, soft: Bool) {
        let slot = Self.slot(kind, soft: soft)
        purges.add(1, at: slot)
        entries.add(count, at: slot)
    }

    /// Purges of one kind so far.
    /// - Parameters:
    ///   - kind: the kind.
    ///   - soft: soft ones or hard ones.
    /// - Returns: the count.
    public func count(kind: CachePurgeScope.Kind, soft: Bool) -> Int {
        purges.value(at: Self.slot(kind, soft: soft))
    }

    private static func slot(_ kind: Kind, soft: Bool) -> Int {
        Kind.allCases.firstIndex(of: kind)! * 2 + (soft ? 1 : 0)
    }

    /// Writes `larder_purges_total` and `larder_purged_entries_total`, by kind and mode.
    /// - Parameter text: the exposition being built.
    public func write(to text: inout PrometheusText) {
        for (name, counters, help) in [
            ("larder_purges_total", purges, "Purges run (DELETE /cache), by kind and mode (delete or soft)."),
            ("larder_purged_entries_total", entries, "Entries deleted or marked stale by purges, by kind and mode."),
        ] {
            text.family(name, type: .counter, help: help)
            for kind in Kind.allCases {
                for soft in [false, true] {
                    text.sample(
                        name, labels: [("kind", kind.rawValue), ("mode", soft ? "soft" : "delete")],
                        value: counters.value(at: Self.slot(kind, soft: soft)))
                }
            }
        }
    }
}
