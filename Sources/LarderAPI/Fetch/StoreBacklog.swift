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

    /// A fetch waiting for room, and when it stops waiting (uptime nanoseconds).
    private struct Waiter {
        let deadline: UInt64
        let start: @Sendable (Place) -> Void
    }

    private struct Queue {
        /// In arrival order, so also in deadline order: every fetch waits the same `maxWait`.
        var waiters: [Waiter] = []
        /// Fires at or before the first waiter's deadline while anyone waits (one timer for all, as
        /// `InFlightWaiters` has: a timer per waiter held every paced miss until its deadline).
        var timer: (any DispatchSourceTimer)?
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
        let deadline = DispatchTime.now().uptimeNanoseconds &+ maxWait
        let reserved = queue.withLock { queue -> Bool in
            if queue.waiters.isEmpty, bytes < limit {
                add(Self.overheadPerFetch)
                return true
            }
            queue.waiters.append(Waiter(deadline: deadline, start: start))
            waiting.add(1, ordering: .relaxed)
            if queue.timer == nil {
                let timer = DispatchSource.makeTimerSource(queue: .global())
                timer.setEventHandler { [weak self] in self?.expire() }
                timer.schedule(deadline: DispatchTime(uptimeNanoseconds: deadline))
                timer.activate()
                queue.timer = timer
            }
            return false
        }
        if reserved {
            start(.reserved)
        } else {
            // Room may have been made between the check and the queueing.
            admitWaiters()
        }
    }

    /// Lets waiters go from the front, each taking its place, while there is room.
    private func admitWaiters() {
        let admitted = queue.withLock { queue -> [Waiter] in
            var count = 0
            while count < queue.waiters.count, bytes < limit {
                add(Self.overheadPerFetch)
                count += 1
            }
            return count == 0 ? [] : takeFront(count, of: &queue)
        }
        for waiter in admitted { waiter.start(.reserved) }
    }

    /// Sends the waiters whose deadline passed, without a place, and re-arms the timer for the first of the
    /// others, or cancels it when nobody waits. Admissions leave the timer alone: it may fire for a waiter
    /// already let go, finds nobody expired, and re-arms, instead of being moved on every admission.
    private func expire() {
        let now = DispatchTime.now().uptimeNanoseconds
        let expired = queue.withLock { queue in
            let expired = takeFront(queue.waiters.prefix { $0.deadline <= now }.count, of: &queue)
            if let next = queue.waiters.first {
                queue.timer?.schedule(deadline: DispatchTime(uptimeNanoseconds: next.deadline))
            } else {
                queue.timer?.cancel()
                queue.timer = nil
            }
            return expired
        }
        for waiter in expired { waiter.start(.waitedOut) }
    }

    /// Takes the first `count` waiters out of the queue (and out of `waitingCount`).
    private func takeFront(_ count: Int, of queue: inout Queue) -> [Waiter] {
        let taken = Array(queue.waiters.prefix(count))
        queue.waiters.removeFirst(count)
        waiting.subtract(count, ordering: .relaxed)
        return taken
    }
}
