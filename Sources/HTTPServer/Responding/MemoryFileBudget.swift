import Glibc
import Synchronization

/// How many `MemoryFile`s may be open at once. Each holds a descriptor, and descriptors are shared with
/// connections and SQLite: a hot tier of many large bodies must not make `accept` fail with `EMFILE`.
/// Past the limit `MemoryFile` refuses, and its owner keeps the bytes in memory instead.
public final class MemoryFileBudget: Sendable {
    /// The process's budget: a quarter of the soft descriptor limit (`RLIMIT_NOFILE`), at least 16.
    public static let shared = MemoryFileBudget(limit: MemoryFileBudget.quarterOfDescriptorLimit())

    /// The most files open at once.
    public let limit: Int
    private let open = Atomic<Int>(0)

    /// - Parameter limit: the most files open at once.
    public init(limit: Int) {
        self.limit = limit
    }

    /// Files open now.
    public var openCount: Int { open.load(ordering: .relaxed) }

    /// Takes one place; false when none is left.
    func take() -> Bool {
        if open.add(1, ordering: .relaxed).newValue > limit {
            open.subtract(1, ordering: .relaxed)
            return false
        }
        return true
    }

    /// Gives back a place taken with `take()`.
    func give() {
        open.subtract(1, ordering: .relaxed)
    }

    static func quarterOfDescriptorLimit() -> Int {
        var limits = rlimit()
        // An unlimited soft limit (RLIM_INFINITY, all bits set) gets a plain 1024.
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0, limits.rlim_cur != rlim_t.max else {
            return 1024
        }
        return max(16, Int(clamping: limits.rlim_cur / 4))
    }
}
