import Synchronization
import TestSupport
import Testing

@testable import LarderAPI
@testable import Upstream

/// One clock for every caller waiting on a shared fetch: each caller expires at its own deadline, in the
/// order the callers joined whichever fetch they wait on; a caller told its outcome leaves the clock and is
/// never expired; and the timer is armed once per wait, not once per caller.
@Suite struct WaiterClockTests {
    @Test func callersOfDifferentFetchesExpireEachAtItsOwnDeadline() async throws {
        let clock = WaiterClock(wait: .seconds(1))
        let first = InFlightWaiters(limit: 8, clock: clock)
        let second = InFlightWaiters(limit: 8, clock: clock)
        let log = ToldLog()
        #expect(first.join { log.record("a1", $0) })
        #expect(second.join { log.record("b1", $0) })
        try await Task.sleep(for: .milliseconds(600))
        #expect(first.join { log.record("a2", $0) })

        #expect(await waitUntil(timeout: .seconds(10)) { log.names.count >= 2 })
        #expect(log.names.prefix(2) == ["a1", "b1"])
        #expect(!log.names.contains("a2"), "a2 joined 600 ms later and expired with the first two")
        #expect(await waitUntil(timeout: .seconds(10)) { log.names.count == 3 })
        #expect(log.told.allSatisfy { $0.outcome == "expired" })
        #expect(clock.waitingCount == 0)
        #expect(first.waitingCount == 0 && second.waitingCount == 0)
    }

    @Test func aCallerToldItsOutcomeLeavesTheClockAndNeverExpires() async throws {
        let clock = WaiterClock(wait: .milliseconds(100))
        let waiters = InFlightWaiters(limit: 8, clock: clock)
        let log = ToldLog()
        #expect(waiters.join { log.record("caller", $0) })
        #expect(clock.waitingCount == 1)
        waiters.settle(.failure(.connectFailed(detail: "refused")), tellingNow: true)
        #expect(clock.waitingCount == 0)
        try await Task.sleep(for: .milliseconds(400))
        #expect(log.told.map(\.outcome) == ["failure"], "the answered caller was told again at its deadline")
    }

    @Test func aDeadlineThatPassesBeforeTheAnnouncementLeavesTheOutcome() async throws {
        let clock = WaiterClock(wait: .milliseconds(50))
        let waiters = InFlightWaiters(limit: 8, clock: clock)
        let log = ToldLog()
        #expect(waiters.join { log.record("caller", $0) })
        // The outcome is known but told with the first body bytes: a deadline passing meanwhile does not
        // take the caller from an answer it already has.
        waiters.settle(.failure(.connectFailed(detail: "refused")), tellingNow: false)
        #expect(await waitUntil(timeout: .seconds(10)) { clock.waitingCount == 0 })
        try await Task.sleep(for: .milliseconds(100))
        #expect(log.told.isEmpty)
        waiters.announce()
        #expect(log.told.map(\.outcome) == ["failure"])
    }

    @Test func theTimerIsArmedOncePerWaitNotOncePerCaller() {
        let clock = WaiterClock(wait: .seconds(60))
        let log = ToldLog()
        for index in 0..<1000 {
            let waiters = InFlightWaiters(limit: 8, clock: clock)
            #expect(waiters.join { log.record("caller \(index)", $0) })
            waiters.settle(.failure(.connectFailed(detail: "refused")), tellingNow: true)
        }
        #expect(log.told.count == 1000)
        #expect(clock.waitingCount == 0)
        #expect(clock.armings.load(ordering: .relaxed) == 1, "the timer was set again for callers after the first")
    }
}

/// What each named caller was told, in order.
private final class ToldLog: Sendable {
    private let entries = Mutex<[(name: String, outcome: String)]>([])

    var told: [(name: String, outcome: String)] { entries.withLock { $0 } }
    var names: [String] { told.map(\.name) }

    func record(_ name: String, _ outcome: InFlightOutcome) {
        entries.withLock { $0.append((name, outcome.label)) }
    }
}
