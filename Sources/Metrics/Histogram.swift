/// Observations of a duration counted into fixed buckets, the form of a Prometheus histogram
/// (https://prometheus.io/docs/concepts/metric_types/#histogram).
///
/// An observation is a short scan of the bounds and three atomic adds (bucket, count, sum); the
/// cumulative `le` counts are only formed when the histogram is written.
public final class Histogram: Sendable {
    /// Upper bounds of the buckets in seconds, ascending (the `+Inf` bucket is implied).
    public let bounds: [Double]
    private let boundNanoseconds: [UInt64]
    // One slot per bound, one for +Inf, then the count and the sum in nanoseconds.
    private let slots: AtomicCounters

    /// Durations from half a millisecond to ten seconds: from a memory hit to a slow origin.
    public static let latencyBounds: [Double] = [
        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]

    /// Creates an empty histogram.
    /// - Parameter bounds: the buckets' upper bounds in seconds; sorted and de-duplicated here.
    public init(bounds: [Double] = Histogram.latencyBounds) {
        let sorted = Array(Set(bounds.filter { $0.isFinite && $0 > 0 })).sorted()
        self.bounds = sorted
        boundNanoseconds = sorted.map { UInt64(($0 * 1e9).rounded()) }
        slots = AtomicCounters(count: sorted.count + 3)
    }

    /// Counts one duration.
    /// - Parameter nanoseconds: the duration observed.
    public func observe(nanoseconds: UInt64) {
        var bucket = boundNanoseconds.count
        for (index, bound) in boundNanoseconds.enumerated() where nanoseconds <= bound {
            bucket = index
            break
        }
        slots.add(1, at: bucket)
        slots.add(1, at: boundNanoseconds.count + 1)
        slots.add(Int(clamping: nanoseconds), at: boundNanoseconds.count + 2)
    }

    /// The figures now: cumulative bucket counts (the last one is `+Inf` and equals `count`), the
    /// count and the sum in seconds.
    public var snapshot: Snapshot {
        var cumulative: [Int] = []
        cumulative.reserveCapacity(bounds.count + 1)
        var running = 0
        for index in 0...bounds.count {
            running += slots.value(at: index)
            cumulative.append(running)
        }
        // Observations land in a bucket before they are counted: never report a count below the buckets.
        let count = max(slots.value(at: bounds.count + 1), running)
        cumulative[bounds.count] = count
        return Snapshot(
            bounds: bounds, cumulativeCounts: cumulative, count: count,
            sumSeconds: Double(slots.value(at: bounds.count + 2)) / 1e9)
    }

    /// A histogram's figures at one moment.
    public struct Snapshot: Sendable, Equatable {
        /// The finite upper bounds, seconds.
        public var bounds: [Double]
        /// Observations at or below each bound, then all of them (`+Inf`).
        public var cumulativeCounts: [Int]
        /// Number of observations.
        public var count: Int
        /// Sum of the observations in seconds.
        public var sumSeconds: Double
    }
}
