import Synchronization

/// One monotonically increasing count (a Prometheus counter series without varying labels).
public final class Counter: Sendable {
    private let storage = Atomic<Int>(0)

    /// Creates a counter at 0.
    public init() {}

    /// Adds to the count.
    /// - Parameter amount: a non-negative amount, 1 by default.
    public func increment(by amount: Int = 1) {
        storage.wrappingAdd(amount, ordering: .relaxed)
    }

    /// The count now.
    public var value: Int { storage.load(ordering: .relaxed) }
}
