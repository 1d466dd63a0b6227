import Synchronization
import TestSupport
import Testing

@testable import LarderAPI

/// The queue of items that wait in arrival order with one timer: items expire in order once their wait
/// is over, items taken before are never expired, and the timer does not outlive the items.
@Suite struct DeadlineQueueTests {
    /// A queue under a lock, as its owners keep it, recording what expired.
    final class Owner: Sendable {
        let queue: Mutex<DeadlineQueue<Int>>
        private let log = Mutex<[Int]>([])

        init(wait: Duration) { queue = Mutex(DeadlineQueue(wait: wait)) }

        func append(_ item: Int) {
            queue.withLock { $0.append(item) { [weak self] in self?.expire() } }
        }

        private func expire() {
            let expired = queue.withLock { $0.takeExpired() }
            log.withLock { $0 += expired }
        }

        var expired: [Int] { log.withLock { $0 } }
        var timerArmed: Bool { queue.withLock { $0.timerArmed } }
    }

    @Test func itemsExpireInArrivalOrderAndTheTimerGoesWithTheLast() async {
        let owner = Owner(wait: .milliseconds(50))
        for item in 0..<3 { owner.append(item) }
        #expect(owner.timerArmed)
        #expect(await waitUntil(timeout: .seconds(10)) { owner.expired.count == 3 })
        #expect(owner.expired == [0, 1, 2])
        #expect(await waitUntil(timeout: .seconds(10)) { !owner.timerArmed })
    }

    @Test func itemsTakenFirstNeverExpireAndTheTimerStillEnds() async {
        let owner = Owner(wait: .milliseconds(50))
        for item in 0..<3 { owner.append(item) }
        #expect(owner.queue.withLock { $0.takeFirst(2) } == [0, 1])
        #expect(await waitUntil(timeout: .seconds(10)) { owner.expired == [2] })
        #expect(await waitUntil(timeout: .seconds(10)) { !owner.timerArmed })
        owner.append(3)
        #expect(owner.queue.withLock { $0.takeFirst(1) } == [3])
        // The timer fires for the item already taken, finds nothing, and is cancelled.
        #expect(await waitUntil(timeout: .seconds(10)) { !owner.timerArmed })
        #expect(owner.expired == [2])
    }

    @Test func takingEveryItemCancelsTheTimer() {
        let owner = Owner(wait: .seconds(60))
        for item in 0..<3 { owner.append(item) }
        #expect(owner.queue.withLock { $0.takeAll() } == [0, 1, 2])
        #expect(!owner.timerArmed)
        #expect(owner.queue.withLock { $0.count } == 0)
    }
}
