import Dispatch
import Synchronization

/// The deadlines of every caller waiting on a shared fetch (`InFlightWaiters`), under one Dispatch timer
/// for the whole service. Every caller waits the same `FetchConfiguration.waiterTimeout`, so deadlines come
/// in the order the callers joined: each waiting caller gets the next ticket, and the timer is armed for the
/// lowest ticket still waiting. A caller answered before its deadline leaves (`leave`) without touching the
/// timer, which may then fire for nobody and re-arm for the next caller still waiting.
///
/// Why: with a timer of its own, each fetch created a Dispatch timer when its first caller joined and
/// cancelled it when its head came. Each was a wake-up of Dispatch's manager thread (timers are its heap),
/// and together about 10 000 instructions of a miss that take a few hundred here: one miss after another,
/// the timer is armed once a `waiterTimeout`, not twice a miss.
final class WaiterClock: Sendable {
    private struct Waiting {
        let deadline: UInt64
        let owner: InFlightWaiters
    }

    private struct State {
        /// The ticket the next caller gets.
        var next = 0
        /// No ticket below this one waits.
        var first = 0
        /// The callers waiting, by ticket; a caller leaves when told its outcome or that its wait expired.
        var waiting: [Int: Waiting] = [:]
        /// The deadline the timer is armed for; `nil` while nobody waits.
        var armedFor: UInt64?
        /// Unscheduled, the timer never fires; `enter` and `fire` set its deadline. (Kept under the lock:
        /// a Dispatch source is not `Sendable`.)
        let timer = DispatchSource.makeTimerSource(queue: .global())
    }

    /// How long each caller waits, in nanoseconds.
    private let wait: UInt64
    private let state = Mutex(State())
    /// How many times the timer was armed, for tests: once per wait, however many callers come meanwhile.
    let armings = Atomic<Int>(0)

    /// - Parameter wait: how long each caller waits (`FetchConfiguration.waiterTimeout`).
    init(wait: Duration) {
        self.wait = wait.waitNanoseconds
        state.withLock { state in
            state.timer.setEventHandler { [weak self] in self?.fire() }
            state.timer.activate()
        }
    }

    deinit {
        state.withLock { $0.timer.cancel() }
    }

    /// How many callers wait.
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Enters a caller of `owner` that waits `wait` from now; `owner.expire(ticket:)` is called once that
    /// time has passed, unless the caller left before.
    /// - Parameter owner: the fetch's waiters.
    /// - Returns: the caller's ticket, for `leave` and `expire(ticket:)`.
    func enter(_ owner: InFlightWaiters) -> Int {
        state.withLock { state in
            let deadline = DispatchTime.now().uptimeNanoseconds &+ wait
            let ticket = state.next
            state.next += 1
            state.waiting[ticket] = Waiting(deadline: deadline, owner: owner)
            if state.armedFor == nil { arm(&state, for: deadline) }
            return ticket
        }
    }

    /// Takes callers out before their deadline (they were told the outcome).
    /// - Parameter tickets: their tickets; one that already expired is ignored.
    func leave(_ tickets: some Sequence<Int>) {
        state.withLock { state in
            for ticket in tickets { state.waiting[ticket] = nil }
            // Each ticket is stepped over once, here or in `fire`.
            while state.first < state.next, state.waiting[state.first] == nil { state.first += 1 }
        }
    }

    /// Tells the owners of the callers whose deadline passed, and re-arms for the first one left.
    private func fire() {
        let now = DispatchTime.now().uptimeNanoseconds
        var due: [(ticket: Int, owner: InFlightWaiters)] = []
        state.withLock { state in
            while state.first < state.next {
                if let waiting = state.waiting[state.first] {
                    guard waiting.deadline <= now else { break }
                    due.append((state.first, waiting.owner))
                    state.waiting[state.first] = nil
                }
                state.first += 1
            }
            if let next = state.waiting[state.first] {
                arm(&state, for: next.deadline)
            } else {
                state.armedFor = nil
            }
        }
        // Outside the lock: an owner takes its own lock, and a caller joining meanwhile takes both.
        for (ticket, owner) in due { owner.expire(ticket: ticket) }
    }

    private func arm(_ state: inout State, for deadline: UInt64) {
        state.armedFor = deadline
        armings.add(1, ordering: .relaxed)
        state.timer.schedule(deadline: DispatchTime(uptimeNanoseconds: deadline))
    }
}
