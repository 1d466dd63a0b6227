import CLinux
import Glibc

/// How the kernel schedules the server's threads (`serve --scheduling`).
///
/// Every miss moves between threads: a connection's queue hands it to the origin client's thread, which
/// hands the head and the body back to that queue and the body on to the store's writer. Under Linux's
/// default policy a thread woken with work preempts the one running whenever it is owed more CPU time,
/// so on a busy CPU each hand-off was a switch to the woken thread and one back: 1.5 context switches a
/// miss in a flood of 1 KiB misses at a server on one CPU, each costing several microseconds on this
/// virtual machine, and the thread that handed the work over lost its place in the middle of a batch.
/// Under `SCHED_BATCH` a woken thread waits until the running one blocks or uses up its slice, and then
/// takes everything handed to it meanwhile at once: 0.35 switches a miss, and 7–13 % less CPU a miss
/// (docs/ARCHITECTURE.md, "A thread handed work does not preempt the one running").
///
/// The origin client's thread keeps the default policy (`Upstream`'s driver sets it for itself): a
/// request handed to it preempts a batch thread and goes out at once, which keeps a lone miss's latency
/// where it was.
public enum ThreadScheduling {
    /// The policy of the server's threads.
    public enum Policy: String, Sendable, CaseIterable {
        /// `SCHED_BATCH`: a woken thread does not preempt the running one.
        case batch
        /// `SCHED_OTHER`, Linux's default.
        case normal
    }

    /// Sets the calling thread's policy, which every thread it starts from then on inherits (Dispatch's
    /// workers included): call it before the server's threads start.
    /// - Parameter policy: the policy.
    /// - Returns: `nil` when set, else the `errno` of the refusal (a seccomp profile may forbid the call).
    public static func apply(_ policy: Policy) -> Int32? {
        clinux_set_thread_batch_policy(policy == .batch ? 1 : 0) == 0 ? nil : errno
    }
}
