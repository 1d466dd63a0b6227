import Glibc

/// What other threads hand the curl driver (`CurlDriver`), and whether the driver needs waking for it.
///
/// The driver runs `curl_multi_perform`, takes the commands posted meanwhile, and sleeps in
/// `curl_multi_poll` only when there are none; a `curl_multi_wakeup` ends that sleep. A command needs a
/// wakeup only when the driver sleeps, or is about to, and none was sent since: while the driver runs it
/// takes the commands before it polls again, and one wakeup ends a poll whatever number of commands follow.
/// Under a flood of misses every submission used to send one (a `sendto` on the submitting thread, a read
/// and an early return from the poll on the driver's).
///
/// Kept under the driver's mutex: checking for commands and going to sleep is one step, so a command
/// posted after it finds the driver asleep and wakes it, and one posted before it is taken at once.
struct CurlDriverInbox<Command> {
    /// What `post(_:)` did with a command.
    enum Posted: Equatable {
        /// Queued; `wake` when the caller must wake the driver (`curl_multi_wakeup`).
        case queued(wake: Bool)
        /// Refused: the driver is shutting down.
        case refused
    }

    private var commands: [Command] = []
    private(set) var isShuttingDown = false
    /// The driver's thread, once it runs.
    var driverThread: pthread_t?
    /// Whether the driver sleeps (or is about to) with no wakeup sent since.
    private var driverSleeps = false

    /// Queues a command from any thread.
    mutating func post(_ command: Command) -> Posted {
        guard !isShuttingDown else { return .refused }
        commands.append(command)
        let wake = driverSleeps
        driverSleeps = false
        return .queued(wake: wake)
    }

    /// Marks the driver as stopping. Returns `false` when it already was; the caller wakes it otherwise.
    mutating func shutDown() -> Bool {
        guard !isShuttingDown else { return false }
        isShuttingDown = true
        driverSleeps = false
        return true
    }

    /// The driver takes the queued commands, and learns whether to stop.
    mutating func take() -> (commands: [Command], stopping: Bool) {
        defer { commands.removeAll(keepingCapacity: true) }
        return (commands, isShuttingDown)
    }

    /// The driver is about to poll: `true` (and it counts as asleep) when nothing is queued and it is not
    /// stopping; `false` when it must run again at once.
    mutating func sleepIfIdle() -> Bool {
        guard commands.isEmpty, !isShuttingDown else { return false }
        driverSleeps = true
        return true
    }

    /// The driver's poll returned.
    mutating func awoke() { driverSleeps = false }
}
