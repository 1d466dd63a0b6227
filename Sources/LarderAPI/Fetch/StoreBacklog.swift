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

    typealias Start = @Sendable (Place) -> Void

    private let held = Atomic<Int>(0)
    /// How many fetches wait, read without the lock on every `subtract`.
    private let waiting = Atomic<Int>(0)
    /// The fetches waiting for room, in arrival order.
    private let queue: Mutex<DeadlineQueue<Start>>
    let limit: Int

    /// - Parameters:
    ///   - limit: the bytes that may wait (`FetchConfiguration.storeBacklogBytes`).
    ///   - maxWait: how long a fetch waits for room at most (`FetchConfiguration.storeBacklogWait`).
    init(limit: Int, maxWait: Duration) {
        self.limit = limit
        queue = Mutex(DeadlineQueue(wait: maxWait))
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
    func reserve(_ start: @escaping Start) {
        let reserved = queue.withLock { queue -> Bool in
            if queue.count == 0, bytes < limit {
                add(Self.overheadPerFetch)
                return true
            }
            queue.append(start) { [weak self] in self?.expire() }
            waiting.add(1, ordering: .relaxed)
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
        let admitted = queue.withLock { queue -> [Start] in
            var count = 0
            while count < queue.count, bytes < limit {
                add(Self.overheadPerFetch)
                count += 1
            }
            waiting.subtract(count, ordering: .relaxed)
            return queue.takeFirst(count)
        }
        for start in admitted { start(.reserved) }
    }

    /// Sends the waiters whose deadline passed, without a place.
    private func expire() {
        let expired = queue.withLock { queue in
            let expired = queue.takeExpired()
            waiting.subtract(expired.count, ordering: .relaxed)
            return expired
        }
        for start in expired { start(.waitedOut) }
    }
}
