import Dispatch
import Synchronization

/// The callers waiting for one fetch's outcome: each is told once, when the outcome is known (at once
/// for a caller who joins after), or `.waitExpired` when its own deadline passes first.
///
/// The outcome of a response head is known before the waiters are told (`settle(_:tellingNow:)` with
/// `false`): they are told with the first body bytes, or at the end of the read that brought the head
/// (`announce()`), so that each caller's head and first bytes leave in one write.
final class InFlightWaiters: Sendable {
    typealias Waiter = @Sendable (InFlightOutcome) -> Void

    /// A caller waiting for the outcome, and when it stops waiting (uptime nanoseconds).
    private struct Waiting {
        let deadline: UInt64
        let waiter: Waiter
    }

    private struct State {
        var outcome: InFlightOutcome?
        var waiting: [Waiting] = []
        /// Fires at the earliest waiter's deadline while the outcome is unknown; cancelled once it is known,
        /// so that a waiter is released with its answer and not kept until its deadline.
        var timer: (any DispatchSourceTimer)?
        var joined = 0
        /// The outcome is known but the waiters are told at `announce()`.
        var announcementDue = false
    }

    private let state = Mutex(State())
    private let limit: Int
    private let timeout: UInt64

    /// - Parameters:
    ///   - limit: how many callers may join (`FetchConfiguration.maxWaiters`).
    ///   - timeout: how long each waits for the outcome (`FetchConfiguration.waiterTimeout`).
    init(limit: Int, timeout: Duration) {
        self.limit = limit
        self.timeout = Self.nanoseconds(timeout)
    }

    /// How many callers joined, for `/fetches`.
    var joined: Int { state.withLock { $0.joined } }

    /// The outcome, once known.
    var outcome: InFlightOutcome? { state.withLock { $0.outcome } }

    /// Whether the deadline timer is armed (only while someone waits for an unknown outcome).
    var timerArmed: Bool { state.withLock { $0.timer != nil } }

    /// Adds a caller; it is told the outcome once (at once if known), or `.waitExpired` when no outcome
    /// came within the timeout from now.
    /// - Returns: `false` when `limit` callers already joined.
    func join(_ waiter: @escaping Waiter) -> Bool {
        let deadline = DispatchTime.now().uptimeNanoseconds &+ timeout
        let known: InFlightOutcome?? = state.withLock { state in
            guard state.joined < limit else { return .none }
            state.joined += 1
            if let outcome = state.outcome { return .some(outcome) }
            state.waiting.append(Waiting(deadline: deadline, waiter: waiter))
            if state.timer == nil {
                // One timer for all, not one per caller: a per-caller timer held the caller (and its
                // connection) for the whole timeout, long after the answer; under a flood of misses that
                // was hundreds of thousands of closures.
                let timer = DispatchSource.makeTimerSource(queue: .global())
                timer.setEventHandler { [weak self] in self?.expire() }
                timer.schedule(deadline: DispatchTime(uptimeNanoseconds: deadline))
                timer.activate()
                state.timer = timer
            }
            return .some(nil)
        }
        switch known {
        case .none: return false
        case .some(.some(let outcome)): waiter(outcome)
        case .some(.none): break
        }
        return true
    }

    /// Makes the outcome known, unless one already is.
    /// - Parameters:
    ///   - outcome: the outcome.
    ///   - tellingNow: tell the waiters now; else at `announce()` (callers joining meanwhile learn it at once).
    /// - Returns: whether this was the outcome (`false` when one was already known).
    @discardableResult
    func settle(_ outcome: InFlightOutcome, tellingNow: Bool) -> Bool {
        var told: [Waiter] = []
        let settled = state.withLock { state -> Bool in
            guard state.outcome == nil else { return false }
            state.outcome = outcome
            if tellingNow { told = Self.take(&state) } else { state.announcementDue = true }
            return true
        }
        for waiter in told { waiter(outcome) }
        return settled
    }

    /// Tells the waiters an outcome settled without telling them, once.
    func announce() {
        var told: [Waiter] = []
        let outcome = state.withLock { state -> InFlightOutcome? in
            guard state.announcementDue, let outcome = state.outcome else { return nil }
            state.announcementDue = false
            told = Self.take(&state)
            return outcome
        }
        guard let outcome else { return }
        for waiter in told { waiter(outcome) }
    }

    /// Tells the callers whose deadline passed that the wait expired, and re-arms the timer for the others.
    private func expire() {
        let now = DispatchTime.now().uptimeNanoseconds
        let expired = state.withLock { state -> [Waiter] in
            guard state.outcome == nil else { return [] }
            let expired = state.waiting.filter { $0.deadline <= now }.map(\.waiter)
            state.waiting.removeAll { $0.deadline <= now }
            if let next = state.waiting.map(\.deadline).min() {
                state.timer?.schedule(deadline: DispatchTime(uptimeNanoseconds: next))
            } else {
                state.timer?.cancel()
                state.timer = nil
            }
            return expired
        }
        for waiter in expired { waiter(.waitExpired) }
    }

    /// Every waiter, taken to be told the outcome; the deadline timer goes with them.
    private static func take(_ state: inout State) -> [Waiter] {
        state.timer?.cancel()
        state.timer = nil
        defer { state.waiting = [] }
        return state.waiting.map(\.waiter)
    }

    /// A non-negative duration in nanoseconds, for deadlines on Dispatch's uptime clock.
    static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        return UInt64(max(0, seconds)) &* 1_000_000_000 &+ UInt64(max(0, attoseconds / 1_000_000_000))
    }
}
