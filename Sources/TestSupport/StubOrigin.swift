import Foundation
import HTTPCore
import Synchronization

/// A real HTTP/1.1 origin on `127.0.0.1`, port 0, for tests: counts connections and requests,
/// records every request head, and answers per path as told (see `StubOriginResponse` for delays, resets,
/// lies about `Content-Length`, endless bodies, gzip).
///
/// Plain blocking sockets: one thread accepts, one thread serves each connection (keep-alive honored).
/// `stop()` (also run by `deinit`) closes everything and waits for the threads.
///
/// ```swift
/// let origin = try StubOrigin()
/// origin.respond(to: "/a", with: .ok("hello").header("Cache-Control", "max-age=60"))
/// origin.respond(to: "/b") { request in request.headers["If-None-Match"] == "\"v1\"" ? .status(304) : .ok("x") }
/// … fetch origin.url("/a") …
/// #expect(origin.requestCount(for: "/a") == 1)
/// ```
public final class StubOrigin: Sendable {
    /// Computes a response from the request.
    public typealias Handler = @Sendable (StubOriginRequest) -> StubOriginResponse

    struct State {
        var routes: [String: Handler] = [:]
        var requests: [StubOriginRequest] = []
        var connections = 0
        var openSockets: Set<Int32> = []
        var activeRequests = 0
        var maxActiveRequests = 0
        var runningThreads = 0
        var isStopped = false
    }

    /// The port the stub listens on.
    public let port: UInt16
    let listener: Int32
    let state = Mutex(State())

    /// Starts listening on `127.0.0.1` at a free port.
    /// - Throws: `StubOriginError` when a socket call fails.
    public init() throws {
        (listener, port) = try loopbackListener(backlog: 128)
        spawn { [self] in acceptLoop() }
    }

    deinit { stop() }

    /// `http://127.0.0.1:<port><path>`.
    /// - Parameter path: the path and query, starting with `/`.
    public func url(_ path: String = "/") -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Answers requests for `path` (exact target first, then the path without query) with `response`.
    public func respond(to path: String, with response: StubOriginResponse) {
        respond(to: path) { _ in response }
    }

    /// Answers requests for `path` with what `handler` computes per request.
    public func respond(to path: String, handler: @escaping Handler) {
        state.withLock { $0.routes[path] = handler }
    }

    /// Answers successive requests for `path` with successive responses; the last one repeats.
    public func respond(to path: String, sequence responses: [StubOriginResponse]) {
        precondition(!responses.isEmpty, "a sequence needs a response")
        let counter = Atomic<Int>(0)
        respond(to: path) { _ in
            let index = counter.add(1, ordering: .relaxed).oldValue
            return responses[min(index, responses.count - 1)]
        }
    }

    /// TCP connections accepted so far.
    public var connectionCount: Int { state.withLock { $0.connections } }

    /// Connections open right now (accepted and not yet closed by either side).
    public var openConnectionCount: Int { state.withLock { $0.openSockets.count } }

    /// Requests received so far (heads read completely).
    public var requestCount: Int { state.withLock { $0.requests.count } }

    /// Requests received for `path` (compared without the query).
    public func requestCount(for path: String) -> Int {
        requests(for: path).count
    }

    /// Every request head received, in order.
    public var requests: [StubOriginRequest] { state.withLock { $0.requests } }

    /// The request heads received for `path` (compared with and without the query), in order.
    public func requests(for path: String) -> [StubOriginRequest] {
        state.withLock { $0.requests.filter { $0.path == path || $0.target == path } }
    }

    /// The most recent request head, if any.
    public var lastRequest: StubOriginRequest? { state.withLock { $0.requests.last } }

    /// The most requests that were being answered at the same moment.
    public var maxConcurrentRequests: Int { state.withLock { $0.maxActiveRequests } }

    /// Waits until at least `count` requests arrived.
    /// - Returns: whether they did before `timeout`.
    public func waitForRequests(_ count: Int, timeout: Duration = .seconds(5)) async -> Bool {
        await waitUntil(timeout: timeout) { requestCount >= count }
    }

    /// Closes the listener and every connection, and waits (up to 5 s) for the stub's threads to end.
    public func stop() {
        let sockets = state.withLock { state -> Set<Int32>? in
            guard !state.isStopped else { return nil }
            state.isStopped = true
            return state.openSockets
        }
        guard let sockets else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        for fd in sockets { shutdown(fd, Int32(SHUT_RDWR)) }
        let deadline = ContinuousClock.now + .seconds(5)
        while state.withLock({ $0.runningThreads }) > 0 && ContinuousClock.now < deadline {
            usleep(2_000)
        }
        close(listener)
    }

    var isStopped: Bool { state.withLock { $0.isStopped } }

    func spawn(_ body: @escaping @Sendable () -> Void) {
        state.withLock { $0.runningThreads += 1 }
        Thread.detachNewThread { [self] in
            body()
            state.withLock { $0.runningThreads -= 1 }
        }
    }

    private func acceptLoop() {
        while !isStopped {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            let number = state.withLock { state -> Int? in
                guard !state.isStopped else { return nil }
                state.connections += 1
                state.openSockets.insert(fd)
                return state.connections
            }
            guard let number else {
                close(fd)
                return
            }
            spawn { [self] in serve(fd, connection: number) }
        }
    }
}

/// Polls `condition` every 2 ms until it holds or `timeout` passes.
/// - Returns: whether it held in time.
public func waitUntil(timeout: Duration, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return true
}
