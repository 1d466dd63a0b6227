import Dispatch

/// Where a connection's deadlines read the time: monotonic nanoseconds. Injected so that the state
/// machine's timeout rules are tested by moving time by hand.
protocol HTTPConnectionClock {
    /// Now, in nanoseconds of a monotonic clock.
    var nanoseconds: UInt64 { get }
}

/// The clock a served connection uses: the system's uptime clock, the one Dispatch timers run on.
struct MonotonicClock: HTTPConnectionClock {
    var nanoseconds: UInt64 { DispatchTime.now().uptimeNanoseconds }
}
