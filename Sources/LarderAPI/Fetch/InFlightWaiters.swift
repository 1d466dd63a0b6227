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
        /// Until the outcome is known, in the order they joined, each with its ticket on the clock; they
        /// leave the clock with their answer, so that a waiter is released then and not at its deadline.
        var waiting: [(ticket: Int, waiter: Waiter)] = []
        var joined = 0
        /// The outcome is known but the waiters are told at `announce()`.
        var announcementDue = false
    }

    private let state = Mutex(State())
    private let limit: Int
    private let clock: WaiterClock

    /// - Parameters:
    ///   - limit: how many callers may join (`FetchConfiguration.maxWaiters`).
    ///   - clock: the deadlines of the service's waiting callers (`FetchConfiguration.waiterTimeout`).
    init(limit: Int, clock: WaiterClock) {
        self.limit = limit
        self.clock = clock
    }

    /// How many callers joined, for `/fetches`.
    var joined: Int { state.withLock { $0.joined } }

    /// The outcome, once known.
    var outcome: InFlightOutcome? { state.withLock { $0.outcome } }

    /// How many callers wait for the outcome.
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Adds a caller; it is told the outcome once (at once if known), or `.waitExpired` when no outcome
    /// came within the timeout from now.
    /// - Returns: `false` when `limit` callers already joined.
    func join(_ waiter: @escaping Waiter) -> Bool {
        let known: InFlightOutcome?? = state.withLock { state in
            guard state.joined < limit else { return .none }
            state.joined += 1
            if let outcome = state.outcome { return .some(outcome) }
            state.waiting.append((clock.enter(self), waiter))
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
        var told: [(ticket: Int, waiter: Waiter)] = []
        let settled = state.withLock { state -> Bool in
            guard state.outcome == nil else { return false }
            state.outcome = outcome
            if tellingNow { swap(&told, &state.waiting) } else { state.announcementDue = true }
            return true
        }
        tell(told, outcome)
        return settled
    }

    /// Tells the waiters an outcome settled without telling them, once.
    func announce() {
        var told: [(ticket: Int, waiter: Waiter)] = []
        let outcome = state.withLock { state -> InFlightOutcome? in
            guard state.announcementDue, let outcome = state.outcome else { return nil }
            state.announcementDue = false
            swap(&told, &state.waiting)
            return outcome
        }
        guard let outcome else { return }
        tell(told, outcome)
    }

    /// Takes the told callers off the clock, then tells them.
    private func tell(_ told: [(ticket: Int, waiter: Waiter)], _ outcome: InFlightOutcome) {
        guard !told.isEmpty else { return }
        clock.leave(told.lazy.map(\.ticket))
        for (_, waiter) in told { waiter(outcome) }
    }

    /// Tells the caller with `ticket` that its wait expired, unless the outcome is known (it is told that,
    /// now or at `announce()`). The clock calls this once the caller's deadline passed.
    /// - Parameter ticket: the caller's ticket.
    func expire(ticket: Int) {
        let expired = state.withLock { state -> Waiter? in
            guard state.outcome == nil, let index = state.waiting.firstIndex(where: { $0.ticket == ticket }) else {
                return nil
            }
            return state.waiting.remove(at: index).waiter
        }
        expired?(.waitExpired)
    }
}
