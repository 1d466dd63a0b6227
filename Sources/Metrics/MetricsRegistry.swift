import Synchronization

/// The metrics a process exposes: an ordered list of collectors, each writing its families when
/// `/metrics` is scraped.
///
/// Collectors are registered at start-up. Values live where they are counted (`Counter`,
/// `AtomicCounters`, `Histogram`, or a store's own counters); a collector only reads them, so a scrape
/// costs what it writes and a request pays nothing for being measured beyond its atomic adds.
public final class MetricsRegistry: Sendable {
    /// Writes some families into the exposition.
    public typealias Collector = @Sendable (inout PrometheusText) -> Void

    private let collectors = Mutex<[Collector]>([])

    /// Creates an empty registry.
    public init() {}

    /// Adds a collector; families are written in registration order.
    /// - Parameter collector: writes one or more complete families.
    public func register(_ collector: @escaping Collector) {
        collectors.withLock { $0.append(collector) }
    }

    /// Adds something that writes its own families.
    /// - Parameter source: a metrics group.
    public func register(_ source: some MetricsSource) {
        register { text in source.write(to: &text) }
    }

    /// The exposition now, in the text format 0.0.4.
    /// - Returns: UTF-8 bytes ending in a line feed (or empty with no families).
    public func render() -> [UInt8] {
        let all = collectors.withLock { $0 }
        var text = PrometheusText()
        for collector in all { collector(&text) }
        return text.bytes
    }
}

/// A group of metrics that writes its own families (HTTP, fetch, store, process).
public protocol MetricsSource: Sendable {
    /// Writes the group's families, each complete (header and every sample).
    /// - Parameter text: the exposition being built.
    func write(to text: inout PrometheusText)
}
