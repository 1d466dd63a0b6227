import Dispatch
import Synchronization

/// Bytes of fetched bodies waiting for the store, against `FetchConfiguration.storeBacklogBytes`, and the
/// fetches paced by it.
///
/// Counted: the bytes received for the store and not yet handed to its writer, plus `overheadPerFetch`
/// for each fetch that may be stored, from the moment it is sent until it is committed or given up.
///
/// Pacing: a fetch whose response may be stored takes its place in the backlog before it is sent
/// (`reserve`). When the backlog is full it waits, in arrival order, until the store has written enough
/// to make room, so that a flood of misses is answered at the rate the store can keep them (as nginx
/// answers at the rate it writes its cache files) instead of being answered and forgotten. A fetch that
/// waited `FetchConfiguration.storeBacklogWait` without room is sent anyway, and its response is stored
/// only if there is room by the time its head arrives (else relayed, `Cache-Status` says why): a stuck
/// disk costs callers that much latency at most, never the answer.
final class StoreBacklog: Sendable {
    /// What a fetch waiting to be written holds besides its body (its state, its writer's): 7 245 waiting
    /// 1 KiB fetches held about 70 MiB.
    static let overheadPerFetch = 10 << 10

    /// Whether a fetch that asked for room got it (and so holds `overheadPerFetch` of the backlog).
    enum Place: Sendable {
        case reserved
        /// It waited as long as it may: sent without a place, stored only if there is room at its head.
        case waitedOut
    }

    /// A fetch waiting for room.
    private struct Waiter {
        let number: Int
        let start: @Sendable (Place) -> Void
    }

    private struct Queue {
        var waiters: [Waiter] = []
        /// The first waiter still in `waiters` (they are let go from the front; compacted now and then).
        var head = 0
        var nextNumber = 0
        var isEmpty: Bool { head == waiters.count }
    }

    private let held = Atomic<Int>(0)
    /// How many fetches wait, read without the lock on every `subtract`.
    private let waiting = Atomic<Int>(0)
    private let queue = Mutex(Queue())
    let limit: Int
    /// How long a fetch waits for room at most, in nanoseconds.
    private let maxWait: UInt64

    init(limit: Int, maxWait: Duration) {
        self.limit = limit
        self.maxWait = InFlightWaiters.nanoseconds(maxWait)
    }

    /// The bytes counted now.
    var bytes: Int { max(0, held.load(ordering: .relaxed)) }

    /// Whether a new response must be relayed unstored.
    var isFull: Bool { bytes >= limit }

    /// How many fetches wait for room now.
    var waitingCount: Int { waiting.load(ordering: .relaxed) }

    func add(_ count: Int) { held.add(count, ordering: .relaxed) }

    func subtract(_ count: Int) {
        held.subtract(count, ordering: .relaxed)
        if waiting.load(ordering: .relaxed) > 0 { admitWaiters() }
    }

    /// Runs `start` once the fetch has its place in the backlog: at once when there is room and nobody
    /// waits before it, else when the store has made room, or after `maxWait` without one.
    func reserve(_ start: @escaping @Sendable (Place) -> Void) {
        enum Now {
            case reserved
            case queued(Int)
        }
        let now = queue.withLock { queue -> Now in
            if queue.isEmpty, bytes < limit {
                add(Self.overheadPerFetch)
                return .reserved
            }
            let number = queue.nextNumber
            queue.nextNumber += 1
            queue.waiters.append(Waiter(number: number, start: start))
            waiting.add(1, ordering: .relaxed)
            return .queued(number)
        }
        switch now {
        case .reserved:
            start(.reserved)
        case .queued(let number):
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: maxWait))) { [self] in
                giveUp(number)
            }
            // Room may have been made between the check and the queueing.
            admitWaiters()
        }
    }

    /// Lets waiters go from the front, each taking its place, while there is room.
    private func admitWaiters() {
        let admitted = queue.withLock { queue -> [Waiter] in
            var admitted: [Waiter] = []
            while !queue.isEmpty, bytes < limit {
                admitted.append(queue.waiters[queue.head])
                queue.head += 1
                add(Self.overheadPerFetch)
            }
            Self.compact(&queue)
            return admitted
        }
        guard !admitted.isEmpty else { return }
        waiting.subtract(admitted.count, ordering: .relaxed)
        for waiter in admitted { waiter.start(.reserved) }
    }

    /// Sends a waiter that is still waiting after `maxWait`, without a place.
    private func giveUp(_ number: Int) {
        let waiter = queue.withLock { queue -> Waiter? in
            guard let index = queue.waiters[queue.head...].firstIndex(where: { $0.number == number }) else {
                return nil
            }
            let waiter = queue.waiters.remove(at: index)
            Self.compact(&queue)
            return waiter
        }
        guard let waiter else { return }
        waiting.subtract(1, ordering: .relaxed)
        waiter.start(.waitedOut)
    }

    /// Drops the let-go front of the queue once it is most of the array.
    private static func compact(_ queue: inout Queue) {
        if queue.isEmpty {
            queue.waiters.removeAll(keepingCapacity: true)
            queue.head = 0
        } else if queue.head > 64, queue.head * 2 > queue.waiters.count {
            queue.waiters.removeFirst(queue.head)
            queue.head = 0
        }
    }
}
