import HTTPCore
import Synchronization
import TestSupport
import Upstream

/// Records every event of a fetch and lets a test wait for the end.
final class RecordingFetchDelegate: OriginFetchDelegate {
    struct Events {
        var head: OriginResponseHead?
        var heads = 0
        var pieces: [[UInt8]] = []
        var results: [Result<OriginFetchMetrics, OriginError>] = []
        /// Every call in order: "head", "bytes", "endRead", "finish".
        var log: [String] = []
    }

    let events = Mutex(Events())
    /// Called with each piece on the driver thread (to pause, cancel, …).
    let onPiece: (@Sendable (OriginFetch, [UInt8]) -> Void)?

    init(onPiece: (@Sendable (OriginFetch, [UInt8]) -> Void)? = nil) {
        self.onPiece = onPiece
    }

    func fetch(_ fetch: OriginFetch, didReceiveHead head: OriginResponseHead) {
        events.withLock {
            $0.head = head
            $0.heads += 1
            $0.log.append("head")
        }
    }

    func fetch(_ fetch: OriginFetch, didReceive bytes: [UInt8]) {
        events.withLock {
            $0.pieces.append(bytes)
            $0.log.append("bytes")
        }
        onPiece?(fetch, bytes)
    }

    func fetchDidEndRead(_ fetch: OriginFetch) {
        events.withLock { $0.log.append("endRead") }
    }

    func fetch(_ fetch: OriginFetch, didFinish result: Result<OriginFetchMetrics, OriginError>) {
        events.withLock {
            $0.results.append(result)
            $0.log.append("finish")
        }
    }

    var head: OriginResponseHead? { events.withLock { $0.head } }
    var body: [UInt8] { events.withLock { $0.pieces.flatMap { $0 } } }
    var pieceCount: Int { events.withLock { $0.pieces.count } }
    var bodyCount: Int { events.withLock { $0.pieces.reduce(0) { $0 + $1.count } } }
    var results: [Result<OriginFetchMetrics, OriginError>] { events.withLock { $0.results } }
    var log: [String] { events.withLock { $0.log } }

    /// Waits for `didFinish` and returns its result (`nil` on timeout).
    func finished(timeout: Duration = .seconds(10)) async -> Result<OriginFetchMetrics, OriginError>? {
        guard await waitUntil(timeout: timeout, { !results.isEmpty }) else { return nil }
        return results.first
    }

    /// Waits for the end and returns the error, `nil` when it succeeded or timed out.
    func error(timeout: Duration = .seconds(10)) async -> OriginError? {
        guard case .failure(let error)? = await finished(timeout: timeout) else { return nil }
        return error
    }
}

/// A client for live tests: loopback opened, small limits unless given.
func makeLoopbackClient(
    limits: OriginLimits = OriginLimits(connectTimeout: .seconds(5), totalTimeout: .seconds(10)),
    maxConcurrentTransfers: Int = 8, allowNetworks: [String] = ["127.0.0.0/8"], ownEndpoints: [IPEndpoint] = []
) -> OriginClient {
    OriginClient(
        configuration: OriginClient.Configuration(
            limits: limits, maxConcurrentTransfers: maxConcurrentTransfers,
            addressPolicy: AddressPolicy(allowNetworks: allowNetworks.compactMap { CIDR($0) }),
            ownEndpoints: ownEndpoints, viaName: "larder-test"))
}
