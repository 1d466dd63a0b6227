import Synchronization

/// Fetches from origins with libcurl's multi interface: connections are reused, transfers are bounded,
/// every connected address passes the address policy, and limits are enforced while streaming.
///
/// One dedicated thread drives libcurl (see `CurlDriver`); `fetch` may be called from any thread and
/// delegate callbacks arrive on that driver thread.
///
/// Every transfer: http and https only (`CURLOPT_PROTOCOLS_STR`, also for redirects), redirects never
/// followed (3xx goes to the delegate as-is), no proxy (environment variables included), no content
/// decoding (bodies arrive as sent), TLS peer and host verification on, HTTP/2 over TLS when the origin
/// offers it. The address policy runs in `CURLOPT_OPENSOCKETFUNCTION` on the address about to be
/// connected to, for every new connection; a reused connection was checked when it was opened, and
/// the policy cannot change during the client's life. Fetches beyond `maxConcurrentTransfers` wait in
/// a FIFO queue without a deadline of their own (the caller's waiter timeout bounds them); the total
/// timeout starts when a fetch leaves the queue.
public final class OriginClient: Sendable {
    /// The configuration given at creation.
    public let configuration: Configuration
    private let driver: CurlDriver

    /// Creates a client and starts its driver thread.
    /// - Parameter configuration: limits, bounds, address policy and `Via` name.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        driver = CurlDriver(configuration: configuration)
    }

    deinit { driver.shutdown() }

    /// Starts a fetch. Validation failures (URL, header values) are reported through the delegate too,
    /// as `didFinish(.failure(...))`, never by throwing.
    /// - Parameters:
    ///   - request: method, URL, the caller's headers and optional limits.
    ///   - delegate: receives the head, the body pieces and the result.
    /// - Returns: the handle to watch, pause, resume or cancel the fetch.
    @discardableResult
    public func fetch(_ request: OriginRequest, delegate: any OriginFetchDelegate) -> OriginFetch {
        let fetch = OriginFetch(id: driver.makeID(), request: request, driver: driver)
        let transfer = CurlTransfer(fetch: fetch, delegate: delegate, configuration: configuration)
        driver.registry.withLock { $0[fetch.id] = fetch }
        driver.send(.submit(transfer))
        return fetch
    }

    /// The fetches not yet finished, queued or running, in submission order (for `GET /fetches`).
    public var inFlight: [OriginFetch] {
        driver.registry.withLock { Array($0.values) }.sorted { $0.id < $1.id }
    }

    /// Cancels every fetch and stops the driver thread; later fetches finish as `.cancelled` at once.
    public func shutdown() { driver.shutdown() }

    /// Easy handles the driver has made: a finished transfer's handle is reset and set up again for a later
    /// one, so fetches one after the other make one (for tests).
    var handlesMade: Int { driver.handlesMade.load(ordering: .relaxed) }
}
