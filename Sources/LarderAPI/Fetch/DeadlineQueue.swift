import Dispatch

/// Items that wait in arrival order, each until its own deadline, with one Dispatch timer for all of them:
/// the fetches waiting for room in the store backlog (`StoreBacklog`). Every item waits the same time, so
/// arrival order is deadline order and only the first deadline needs a timer. (A timer per item held each
/// one, and what it captured, until its deadline, long after it was let go: under a flood of misses
/// hundreds of thousands of closures.) The callers waiting on fetches have one clock for the whole service
/// instead (`WaiterClock`): a queue of this kind per fetch armed and cancelled a timer on every miss.
///
/// A value kept under its owner's lock. The timer runs the owner's `onTimer` on a global queue, which takes
/// the lock and calls `takeExpired`.
struct DeadlineQueue<Item> {
    /// How long each item waits, in nanoseconds.
    private let wait: UInt64
    /// In arrival order, so also in deadline order (uptime nanoseconds).
    private var items: [(deadline: UInt64, item: Item)] = []
    /// Armed at or before the first item's deadline while any item waits.
    private var timer: (any DispatchSourceTimer)?

    /// - Parameter wait: how long each item waits.
    init(wait: Duration) {
        self.wait = wait.waitNanoseconds
    }

    /// How many items wait.
    var count: Int { items.count }

    /// Whether the timer is armed (for tests: it must not outlive the items).
    var timerArmed: Bool { timer != nil }

    /// Adds an item that waits `wait` from now, arming the timer when none is armed.
    /// - Parameters:
    ///   - item: the item.
    ///   - onTimer: what the timer runs (its owner's expiry, which calls `takeExpired`).
    mutating func append(_ item: Item, onTimer: @escaping @Sendable () -> Void) {
        // Read under the owner's lock, so that the deadlines are in the items' order.
        let deadline = DispatchTime.now().uptimeNanoseconds &+ wait
        items.append((deadline, item))
        guard timer == nil else { return }
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.setEventHandler(handler: onTimer)
        timer.schedule(deadline: DispatchTime(uptimeNanoseconds: deadline))
        timer.activate()
        self.timer = timer
    }

    /// Takes the items whose deadline has passed, then re-arms the timer for the first item left, or
    /// cancels it when none is.
    mutating func takeExpired() -> [Item] {
        let now = DispatchTime.now().uptimeNanoseconds
        let expired = takeFirst(items.prefix { $0.deadline <= now }.count)
        if let next = items.first {
            timer?.schedule(deadline: DispatchTime(uptimeNanoseconds: next.deadline))
        } else {
            cancelTimer()
        }
        return expired
    }

    /// Takes the first `count` items and leaves the timer as it is: it may fire for an item already
    /// taken, then finds nothing expired and re-arms (`takeExpired`), which is cheaper than moving it on
    /// every take.
    mutating func takeFirst(_ count: Int) -> [Item] {
        let taken = items.prefix(count).map(\.item)
        items.removeFirst(count)
        return taken
    }

    /// Takes every item; the timer goes with them.
    mutating func takeAll() -> [Item] {
        cancelTimer()
        defer { items = [] }
        return items.map(\.item)
    }

    private mutating func cancelTimer() {
        timer?.cancel()
        timer = nil
    }
}
