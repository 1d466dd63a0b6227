import CacheCore
public import Dispatch
public import HTTPCore
public import HTTPServer
import Synchronization

/// Runs blocking `CacheStore` work off the connection queues, which must never wait on disk.
///
/// A fixed set of serial queues taken in turn: at most `width` threads block on the store at once, however
/// many requests arrive, and a long read on one queue leaves the others free. (A concurrent queue would
/// start a new thread for each blocked item, without bound.)
public final class StorageExecutor: Sendable {
    private let queues: [DispatchQueue]
    private let nextQueue = Atomic<Int>(0)

    /// Creates the executor.
    /// - Parameters:
    ///   - width: how many queues (threads blocking on the store at once); at least 1.
    ///   - label: the queues' label prefix.
    ///   - qos: the queues' class. On Linux, Dispatch runs each class at its own nice value (user-initiated
    ///     -2, default 0, utility 2), so work that no caller waits for can give way to work one does.
    public init(width: Int = 4, label: String = "larder.storage", qos: DispatchQoS = .userInitiated) {
        queues = (0..<max(1, width)).map { DispatchQueue(label: "\(label).\($0)", qos: qos) }
        for queue in queues { queue.setSpecific(key: Self.marker, value: true) }
    }

    /// Marks the executor's queues, so that `isCurrent` can tell them from connection queues.
    private static let marker = DispatchSpecificKey<Bool>()

    /// Whether the caller runs on a queue of some storage executor (tests check that store calls never
    /// run on a connection queue).
    public static var isCurrent: Bool { DispatchQueue.getSpecific(key: marker) ?? false }

    /// Runs work on the next queue.
    /// - Parameter work: blocking work.
    public func submit(_ work: @escaping @Sendable () -> Void) {
        queueInTurn().async(execute: work)
    }

    /// The next queue in turn, for a sequence of work that must run in order (one fetch's body writes):
    /// give all of it to the one queue returned.
    public func queueInTurn() -> DispatchQueue {
        let turn = nextQueue.add(1, ordering: .relaxed).oldValue
        return queues[(turn & Int.max) % queues.count]
    }

    /// Runs work that builds a response and sends it; what it throws is answered as problem+json
    /// (`APIError(_:)`: an `APIError` as it is, a store error by its API mapping, anything else a 500).
    /// - Parameters:
    ///   - writer: where the answer goes.
    ///   - work: blocking work that returns the response.
    public func respond(_ writer: HTTPResponseWriter, _ work: @escaping @Sendable () throws -> HTTPResponse) {
        submit {
            let response: HTTPResponse
            do {
                response = try work()
            } catch {
                response = APIError(error).makeResponse()
            }
            writer.send(response)
        }
    }
}
