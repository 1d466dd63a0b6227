import Synchronization

/// The memory that bodies of origin fetches in flight may hold, all fetches together
/// (`--in-flight-bytes`), and how a fetch shares it.
///
/// A fetch holds the bytes that arrived and that one of its consumers (a caller, the store writer)
/// still needs. Past its share it pauses its origin transfer until the consumers catch up
/// (`InFlightBody`): a caller reading slowly, or a store writing slowly, slows the origin instead of
/// filling memory, whatever the object sizes.
final class InFlightBudget: Sendable {
    /// The bound on all fetches' held bytes.
    let limit: Int
    /// The most one fetch holds before it pauses: a quarter of the bound (at least 1 MiB), so that a few
    /// slow callers of large bodies cannot take all of it.
    let perFetch: Int
    /// What any fetch may hold whatever the others hold, so that each keeps making progress when the
    /// bound is reached: a fetch pauses past it only when the total is over the bound.
    let floor: Int

    private let held = Atomic<Int>(0)
    private let peak = Atomic<Int>(0)

    /// - Parameter limit: the bound in bytes (at least 1 MiB is used).
    init(limit: Int) {
        self.limit = max(limit, 1 << 20)
        perFetch = max(self.limit / 4, 1 << 20)
        floor = 256 << 10
    }

    /// Bytes held by all fetches now.
    var bytes: Int { held.load(ordering: .relaxed) }

    /// The most held at once since the process started (for tests and the benchmark).
    var peakBytes: Int { peak.load(ordering: .relaxed) }

    /// Counts bytes a fetch took in.
    func take(_ count: Int) {
        let now = held.add(count, ordering: .relaxed).newValue
        var seen = peak.load(ordering: .relaxed)
        while now > seen {
            let (exchanged, current) = peak.compareExchange(
                expected: seen, desired: now, ordering: .relaxed)
            if exchanged { break }
            seen = current
        }
    }

    /// Counts bytes a fetch let go.
    func give(_ count: Int) {
        held.subtract(count, ordering: .relaxed)
    }

    /// Whether a fetch holding `count` bytes must pause its origin.
    func mustPause(holding count: Int) -> Bool {
        count > perFetch || (count > floor && bytes > limit)
    }

    /// Whether a paused fetch now holding `count` bytes may read from its origin again.
    func mayResume(holding count: Int) -> Bool {
        count <= floor || (count <= perFetch / 2 && bytes <= limit)
    }
}
