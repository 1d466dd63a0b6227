extension Duration {
    /// The duration in whole nanoseconds, 0 when negative: a wait added to a `DispatchTime` uptime.
    var waitNanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        return UInt64(max(0, seconds)) &* 1_000_000_000 &+ UInt64(max(0, attoseconds / 1_000_000_000))
    }
}
