import Synchronization
import TestSupport
import Testing

@testable import LarderAPI

/// The store backlog's pacing on its own: who gets a place, in what order, and who is sent without one.
@Suite struct StoreBacklogTests {
    /// The places each fetch was given, in the order they were given.
    final class Starts: Sendable {
        private let log = Mutex<[(Int, StoreBacklog.Place)]>([])
        func record(_ fetch: Int) -> @Sendable (StoreBacklog.Place) -> Void {
            { place in self.log.withLock { $0.append((fetch, place)) } }
        }
        var fetches: [Int] { log.withLock { $0.map(\.0) } }
        var reserved: [Int] { log.withLock { $0.filter { if case .reserved = $0.1 { true } else { false } }.map(\.0) } }
    }

    @Test func aFetchWithRoomStartsAtOnceAndHoldsItsPlace() {
        let backlog = StoreBacklog(limit: 3 * StoreBacklog.overheadPerFetch, maxWait: .seconds(60))
        let starts = Starts()
        for fetch in 0..<3 { backlog.reserve(starts.record(fetch)) }
        #expect(starts.reserved == [0, 1, 2])
        #expect(backlog.bytes == 3 * StoreBacklog.overheadPerFetch)
        #expect(backlog.waitingCount == 0)
    }

    @Test func fetchesWaitWhileFullAndGoFirstComeFirstServedAsRoomIsMade() {
        let backlog = StoreBacklog(limit: StoreBacklog.overheadPerFetch, maxWait: .seconds(60))
        let starts = Starts()
        for fetch in 0..<4 { backlog.reserve(starts.record(fetch)) }
        #expect(starts.fetches == [0])
        #expect(backlog.waitingCount == 3)
        // Body bytes count too: room is made only once the backlog is under its limit.
        backlog.add(StoreBacklog.overheadPerFetch)
        backlog.subtract(StoreBacklog.overheadPerFetch)
        #expect(starts.fetches == [0])
        backlog.subtract(StoreBacklog.overheadPerFetch)
        #expect(starts.reserved == [0, 1])
        backlog.subtract(StoreBacklog.overheadPerFetch)
        backlog.subtract(StoreBacklog.overheadPerFetch)
        #expect(starts.reserved == [0, 1, 2, 3])
        #expect(backlog.waitingCount == 0)
        #expect(backlog.bytes == StoreBacklog.overheadPerFetch)
    }

    @Test func aFetchThatWaitedOutItsWaitIsSentWithoutAPlace() async {
        let backlog = StoreBacklog(limit: 1, maxWait: .milliseconds(100))
        let starts = Starts()
        backlog.reserve(starts.record(0))
        backlog.reserve(starts.record(1))
        backlog.reserve(starts.record(2))
        #expect(backlog.waitingCount == 2)
        #expect(await waitUntil(timeout: .seconds(10)) { starts.fetches.count == 3 })
        #expect(starts.fetches == [0, 1, 2])
        #expect(starts.reserved == [0])
        #expect(backlog.waitingCount == 0)
        // Sent without a place, they hold none: only the first fetch's place is counted.
        #expect(backlog.bytes == StoreBacklog.overheadPerFetch)
    }
}
