import Synchronization

/// A fixed number of atomic integers, for a family of series whose label sets are known at start-up
/// (a route × status table, the buckets of a histogram): adding to one is one atomic add at an
/// index, with no lookup and no allocation.
///
/// `@unchecked Sendable`: the slots are allocated and initialised in `init`, never resized, freed in
/// `deinit`, and every access in between is an atomic operation on one slot.
public final class AtomicCounters: @unchecked Sendable {
    /// How many slots there are.
    public let count: Int
    private let slots: UnsafeMutablePointer<Atomic<Int>>

    /// Creates `count` slots, all 0.
    /// - Parameter count: the number of slots (at least 1 is allocated).
    public init(count: Int) {
        self.count = max(1, count)
        slots = .allocate(capacity: self.count)
        for index in 0..<self.count { (slots + index).initialize(to: Atomic(0)) }
    }

    deinit {
        slots.deinitialize(count: count)
        slots.deallocate()
    }

    /// Adds to one slot.
    /// - Parameters:
    ///   - amount: what to add (a counter only ever adds non-negative amounts).
    ///   - index: the slot, `0..<count`; an index outside is clamped (a metric must never trap).
    public func add(_ amount: Int, at index: Int) {
        let slot = min(max(index, 0), count - 1)
        slots[slot].wrappingAdd(amount, ordering: .relaxed)
    }

    /// The value of one slot now.
    /// - Parameter index: the slot, `0..<count`.
    /// - Returns: its value (0 for an index outside).
    public func value(at index: Int) -> Int {
        guard index >= 0, index < count else { return 0 }
        return slots[index].load(ordering: .relaxed)
    }
}
