import Foundation

/// Runs blocking work on a thread of its own and returns its result. A test whose timing matters
/// (a client that pauses between bytes) cannot sleep on the cooperative pool: on a two-core
/// machine the parallel suite may hold both of its threads, and a 250 ms sleep then ends seconds late.
/// - Parameter work: the blocking work.
/// - Returns: what `work` returned.
/// - Throws: what `work` threw.
public func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}
