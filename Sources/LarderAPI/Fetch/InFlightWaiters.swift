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

    private struct State {
        var outcome: InFlightOutcome?
        /// Until the outcome is known; its timer goes with them, so that a waiter is released with its
        /// answer and not kept until its deadline.
        var waiting: DeadlineQueue<Waiter>
        var joined = 0
        /// The outcome is known but the waiters are told at `announce()`.
        var announcementDue = false
    }

    private let state: Mutex<State>
    private let limit: Int

    /// - Parameters:
    ///   - limit: how many callers may join (`FetchConfiguration.maxWaiters`).
    ///   - timeout: how long each waits for the outcome (`FetchConfiguration.waiterTimeout`).
    init(limit: Int, timeout: Duration) {
        self.limit = limit
        state = Mutex(State(waiting: DeadlineQueue(wait: timeout)))
    }

    /// How many callers joined, for `/fetches`.
    var joined: Int { state.withLock { $0.joined } }

    /// The outcome, once known.
    var outcome: InFlightOutcome? { state.withLock { $0.outcome } }

    /// Whether the deadline timer is armed (only while someone waits for an unknown outcome).
    var timerArmed: Bool { state.withLock { $0.waiting.timerArmed } }

    /// Adds a caller; it is told the outcome once (at once if known), or `.waitExpired` when no outcome
    /// came within the timeout from now.
    /// - Returns: `false` when `limit` callers already joined.
    func join(_ waiter: @escaping Waiter) -> Bool {
        let known: InFlightOutcome?? = state.withLock { state in
            guard state.joined < limit else { return .none }
            state.joined += 1
            if let outcome = state.outcome { return .some(outcome) }
            state.waiting.append(waiter) { [weak self] in self?.expire() }
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
            if tellingNow { told = state.waiting.takeAll() } else { state.announcementDue = true }
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
            told = state.waiting.takeAll()
            return outcome
        }
        guard let outcome else { return }
        for waiter in told { waiter(outcome) }
    }

    /// Tells the callers whose deadline passed that the wait expired (the queue re-arms for the others).
    private func expire() {
        let expired = state.withLock { state -> [Waiter] in
            guard state.outcome == nil else { return [] }
            return state.waiting.takeExpired()
        }
        for waiter in expired { waiter(.waitExpired) }
    }
}
