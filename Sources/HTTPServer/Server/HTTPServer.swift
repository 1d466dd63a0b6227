import Dispatch
import Glibc
import HTTPCore
import Synchronization

/// An HTTP/1.1 server on libdispatch: a listening socket watched by a read source, a few event loops
/// (serial queues, each watching its sockets through one epoll set under one read source), and per
/// connection one serial queue targeting its loop; never a thread per connection.
///
/// ```swift
/// let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0), responder: router)
/// try server.start()
/// print(server.port)
/// server.shutdown(grace: 10) { exit(0) }
/// ```
///
/// `@unchecked Sendable`: shared state is in a `Mutex` or an atomic, and the two dispatch sources are
/// owned by `acceptQueue`.
public final class HTTPServer: @unchecked Sendable {
    /// The settings the server was created with.
    public let configuration: HTTPServerConfiguration
    private let responder: any HTTPResponder
    private let accessLog: (@Sendable (HTTPAccessRecord) -> Void)?
    private let onError: (@Sendable (SocketError) -> Void)?
    private let acceptQueue: DispatchQueue
    private let loops: [EventLoop]
    private let state = Mutex(ServerState())
    private let activeConnections = Atomic<Int>(0)
    private let acceptedConnections = Atomic<Int>(0)
    private let drainSignal = DrainSignal()
    // Dispatch sources are not Sendable; these two are only touched on `acceptQueue`.
    nonisolated(unsafe) private var listenSource: (any DispatchSourceRead)?
    nonisolated(unsafe) private var forceTimer: (any DispatchSourceTimer)?
    /// The listen source while it is suspended after an `accept` failure (also only on `acceptQueue`).
    nonisolated(unsafe) private var pausedListenSource: (any DispatchSourceRead)?

    private struct ServerState {
        var boundPort = 0
        var nextConnectionID = 0
        var nextLoop = 0
        var connections: [Int: HTTPConnection] = [:]
        var draining = false
        var drainCompletion: (@Sendable () -> Void)?
    }

    /// Creates a server; nothing listens until `start()`.
    /// - Parameters:
    ///   - configuration: address, limits and timeouts.
    ///   - responder: answers every request (usually a `Router`).
    ///   - accessLog: called once per answered request, on the connection's queue; keep it quick.
    ///   - onError: told about failures that do not belong to one request (`accept` running out of
    ///     descriptors).
    public init(
        configuration: HTTPServerConfiguration,
        responder: any HTTPResponder,
        accessLog: (@Sendable (HTTPAccessRecord) -> Void)? = nil,
        onError: (@Sendable (SocketError) -> Void)? = nil
    ) {
        self.configuration = configuration
        self.responder = responder
        self.accessLog = accessLog
        self.onError = onError
        let count = configuration.eventLoops > 0 ? configuration.eventLoops : HTTPServer.usableCPUCount()
        self.loops = (0..<count).map { EventLoop(label: "larder.http.loop.\($0)") }
        self.acceptQueue = DispatchQueue(label: "larder.http.accept", target: loops[0].queue)
    }

    /// The port the server listens on (the chosen one when configured with 0); 0 before `start()`.
    public var port: Int { state.withLock { $0.boundPort } }

    /// The number of connections being served now.
    public var connectionCount: Int { activeConnections.load(ordering: .relaxed) }

    /// The number of connections accepted since `start()`, including those refused at the limit (metrics).
    public var acceptedConnectionCount: Int { acceptedConnections.load(ordering: .relaxed) }

    /// Whether `shutdown` has begun: the server no longer accepts, and answers only what is in flight
    /// (readiness reports it).
    public var isDraining: Bool { drainSignal.isDraining }

    /// Binds, listens and starts accepting connections.
    /// - Throws: `SocketError` when the address cannot be parsed, bound or listened on.
    public func start() throws(SocketError) {
        // `sendfile` has no MSG_NOSIGNAL: a peer gone mid-file must be EPIPE, not a process-ending signal.
        signal(SIGPIPE, SIG_IGN)
        for loop in loops { try loop.start() }
        let (fd, port) = try Socket.makeListener(
            host: configuration.host, port: configuration.port, backlog: Int32(clamping: configuration.backlog))
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: acceptQueue)
        source.setEventHandler { [self] in acceptPending(listener: fd) }
        source.setCancelHandler { close(fd) }
        state.withLock { $0.boundPort = port }
        acceptQueue.sync { listenSource = source }
        source.activate()
    }

    /// Stops accepting, closes idle connections, lets requests in flight finish (their responses say
    /// `Connection: close`) and, after `grace` seconds, closes whatever is left.
    /// - Parameters:
    ///   - grace: seconds granted to requests in flight.
    ///   - completion: called once, on a dispatch queue, when every connection is closed.
    public func shutdown(grace: Double, completion: @escaping @Sendable () -> Void) {
        drainSignal.begin()
        acceptQueue.async { [self] in
            let connections: [HTTPConnection]? = state.withLock { state in
                if state.draining { return nil }
                state.draining = true
                state.drainCompletion = completion
                return Array(state.connections.values)
            }
            listenSource?.cancel()
            listenSource = nil
            // A cancelled source that stays suspended never runs its cancel handler (the close).
            resumeListening()
            guard let connections else {
                // A second shutdown: run its completion when the first one finishes.
                chainCompletion(completion)
                return
            }
            if connections.isEmpty { finishDrainIfDone() }
            for connection in connections {
                connection.queue.async { connection.beginDrain() }
            }
            let timer = DispatchSource.makeTimerSource(queue: acceptQueue)
            timer.schedule(deadline: .now() + max(grace, 0))
            timer.setEventHandler { [self] in
                let remaining = state.withLock { Array($0.connections.values) }
                for connection in remaining {
                    connection.queue.async { connection.abort() }
                }
            }
            forceTimer = timer
            timer.activate()
        }
    }

    /// Drains as `shutdown(grace:completion:)` does and returns when every connection is closed.
    /// - Parameter grace: seconds granted to requests in flight.
    public func shutdown(grace: Double) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            shutdown(grace: grace) { continuation.resume() }
        }
    }

    private func chainCompletion(_ completion: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            guard let first = state.drainCompletion else { return true }
            state.drainCompletion = {
                first()
                completion()
            }
            return false
        }
        if runNow { completion() }
    }

    private func finishDrainIfDone() {
        let completion = state.withLock { state -> (@Sendable () -> Void)? in
            guard state.draining, state.connections.isEmpty, let completion = state.drainCompletion else { return nil }
            state.drainCompletion = nil
            return completion
        }
        guard let completion else { return }
        acceptQueue.async { [self] in
            forceTimer?.cancel()
            forceTimer = nil
        }
        DispatchQueue.global().async(execute: completion)
    }

    private func acceptPending(listener: Int32) {
        // A bounded batch per event keeps one busy listener from starving the loop it shares.
        for _ in 0..<64 {
            let fd: Int32
            do {
                guard let accepted = try Socket.accept(listener) else { return }
                fd = accepted
            } catch {
                onError?(error)
                // Out of descriptors (EMFILE) the listener stays readable: pause instead of spinning.
                if let source = listenSource, pausedListenSource == nil {
                    source.suspend()
                    pausedListenSource = source
                    acceptQueue.asyncAfter(deadline: .now() + .milliseconds(100)) { [self] in resumeListening() }
                }
                return
            }
            admit(fd)
        }
    }

    private func resumeListening() {
        pausedListenSource?.resume()
        pausedListenSource = nil
    }

    private func admit(_ fd: Int32) {
        acceptedConnections.add(1, ordering: .relaxed)
        try? Socket.setNoDelay(fd)
        let remote = (try? Socket.remoteAddress(of: fd).endpoint) ?? HTTPAddress(ip: "?", port: 0, isLoopback: false)
        let local = (try? Socket.localAddress(of: fd).endpoint) ?? HTTPAddress(ip: "?", port: 0, isLoopback: false)
        let overCapacity = activeConnections.load(ordering: .relaxed) >= configuration.maxConnections
        let (id, loop) = state.withLock { state -> (Int, EventLoop) in
            state.nextConnectionID += 1
            state.nextLoop = (state.nextLoop + 1) % loops.count
            return (state.nextConnectionID, loops[state.nextLoop])
        }
        let connection = HTTPConnection(
            id: id, fd: fd, loop: loop, remoteAddress: remote, localAddress: local, configuration: configuration,
            responder: responder, accessLog: accessLog, drainSignal: drainSignal,
            onClose: { [self] connection in connectionClosed(connection, counted: !overCapacity) })
        if overCapacity {
            let problem = ProblemDetails.make(
                status: .serviceUnavailable, type: HTTPProblemType.overloaded,
                detail: "The server is at its limit of \(configuration.maxConnections) connections.")
            connection.queue.async {
                connection.start(rejecting: problem.makeResponse(headers: HTTPHeaders([("Retry-After", "1")])))
            }
            return
        }
        activeConnections.add(1, ordering: .relaxed)
        state.withLock { $0.connections[id] = connection }
        connection.queue.async { connection.start() }
    }

    private func connectionClosed(_ connection: HTTPConnection, counted: Bool) {
        guard counted else { return }
        activeConnections.subtract(1, ordering: .relaxed)
        state.withLock { _ = $0.connections.removeValue(forKey: connection.id) }
        finishDrainIfDone()
    }

    /// The CPUs this process may run on (respecting `taskset`, read from `/proc/self/status`), at least 1.
    static func usableCPUCount() -> Int {
        let online = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        guard let file = fopen("/proc/self/status", "r") else { return online }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 4096)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard text.hasPrefix("Cpus_allowed:") else { continue }
            let mask = text.dropFirst("Cpus_allowed:".count)
            let count = mask.reduce(0) { total, character in
                total + (character.hexDigitValue.map { $0.nonzeroBitCount } ?? 0)
            }
            return max(1, min(count, online))
        }
        return online
    }
}
