import CLinux
import Dispatch
import Glibc
import HTTPCore

/// One accepted TCP connection: the socket, the timer and the buffers, driven by
/// `HTTPConnectionStateMachine`, which holds every rule (what to read, when to dispatch, when to close).
///
/// Each entry point (a readiness event, a response, a body piece, the timer, a drain) reports its event to
/// the machine and calls `drive()`, which performs the machine's actions until it waits.
///
/// Every mutable member belongs to `queue`, a serial queue that targets one of the server's shared event
/// loops: the loop reports socket readiness on its own queue (serialized with `queue`), the timer fires
/// on `queue`, and the writer hops onto it. Hence `@unchecked Sendable`. The same confinement is why the
/// mutable members are `@exclusivity(unchecked)`: no two accesses to one of them can overlap, so the
/// runtime's check of every access (a thread-local lookup and insert each, about fifteen accesses an
/// answer, 5 % of a memory-tier hit's instructions) would never find anything (docs/ARCHITECTURE.md).
final class HTTPConnection: @unchecked Sendable {
    /// Lets the writer tell whether it already runs on this connection's queue.
    static let queueKey = DispatchSpecificKey<Int>()
    /// The largest piece pulled from a streaming body at once: four stored chunks, so that a large cold
    /// hit costs one storage hop and one `writev` per 256 KiB rather than per chunk.
    static let streamPieceBytes = 256 * 1024

    let id: Int
    let fd: Int32
    let queue: DispatchQueue
    let remoteAddress: HTTPAddress
    let localAddress: HTTPAddress
    let responder: any HTTPResponder
    let accessLog: (@Sendable (HTTPAccessRecord) -> Void)?
    let drainSignal: DrainSignal
    /// Told once when the connection has closed; the server forgets it then.
    let onClose: @Sendable (HTTPConnection) -> Void
    /// The event loop this connection's queue targets; its read buffer is shared with the loop's other
    /// connections (see `EventLoop`).
    let loop: EventLoop
    @exclusivity(unchecked) var timer: (any DispatchSourceTimer)?

    @exclusivity(unchecked) var machine: HTTPConnectionStateMachine<MonotonicClock>
    /// Whether `drive()` is on the stack: a responder that answers inline reports its response from inside
    /// the dispatch, and the outer `drive()` performs what follows once the responder returns.
    @exclusivity(unchecked) private var driving = false

    /// What the access log needs about the request being answered.
    @exclusivity(unchecked) var inFlight: InFlight?
    /// The identifier of the request in flight (or of the last one): written on its response and logged.
    /// Kept here rather than in `InFlight`, which is copied several times per request.
    @exclusivity(unchecked) var requestID = HTTPRequestID()
    /// Numbers the exchanges, so that an answer for one that ended (closed meanwhile) is recognised.
    @exclusivity(unchecked) var requestCounter = 0
    @exclusivity(unchecked) var stream: BodyStream?

    // The output: a head (status line and fields, or a chunk-size line) and content, written together.
    @exclusivity(unchecked) var outHead: [UInt8] = []
    @exclusivity(unchecked) var outBody: [UInt8] = []
    @exclusivity(unchecked) var headSent = 0
    @exclusivity(unchecked) var bodySent = 0
    /// Content sent from a file after the head and body buffers (`sendfile`), and how much of it went.
    @exclusivity(unchecked) var outFile: (any HTTPFileRegion)?
    @exclusivity(unchecked) var fileSent = 0

    init(
        id: Int,
        fd: Int32,
        loop: EventLoop,
        remoteAddress: HTTPAddress,
        localAddress: HTTPAddress,
        configuration: HTTPServerConfiguration,
        responder: any HTTPResponder,
        accessLog: (@Sendable (HTTPAccessRecord) -> Void)?,
        drainSignal: DrainSignal,
        onClose: @escaping @Sendable (HTTPConnection) -> Void
    ) {
        self.id = id
        self.fd = fd
        self.loop = loop
        self.queue = DispatchQueue(label: "larder.http.connection", target: loop.queue)
        self.remoteAddress = remoteAddress
        self.localAddress = localAddress
        self.responder = responder
        self.accessLog = accessLog
        self.drainSignal = drainSignal
        self.onClose = onClose
        self.machine = HTTPConnectionStateMachine(
            limits: .init(configuration), parserLimits: configuration.parserLimits, clock: MonotonicClock())
        queue.setSpecific(key: HTTPConnection.queueKey, value: id)
    }

    /// Registers the socket with the loop, sets up the timer and starts reading. Call on `queue`.
    /// - Parameter rejection: when given, the connection answers it at once and closes (over capacity).
    func start(rejecting rejection: HTTPResponse? = nil) {
        dispatchPrecondition(condition: .onQueue(queue))
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [self] in
            machine.timerFired()
            drive()
        }
        self.timer = timer
        timer.activate()
        do {
            try loop.register(self)
            machine.start(rejecting: rejection)
        } catch {
            machine.abort()
        }
        drive()
    }

    /// The loop saw the socket become readable, writable, or closed by the peer (`EPOLL*` bits).
    func socketReady(events: UInt32) {
        let failed = events & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0
        if events & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue) != 0 || failed {
            machine.readable(peerClosing: failed || events & EPOLLRDHUP.rawValue != 0)
        }
        if events & EPOLLOUT.rawValue != 0 || failed { machine.writable() }
        drive()
    }

    /// Shutdown has begun: an idle connection closes now, a busy one after its current response
    /// (which says `Connection: close`).
    func beginDrain() {
        machine.drain()
        drive()
    }

    /// Closes at once; a response being written is cut short and its body source cancelled.
    func abort() {
        machine.abort()
        drive()
    }

    /// Performs the machine's actions until it waits for an event.
    func drive() {
        if driving { return }
        driving = true
        defer { driving = false }
        while true {
            switch machine.nextAction() {
            case .none:
                return
            case .read:
                readSocket()
            case .dispatch(let request):
                dispatch(request)
            case .answer(let response):
                respondWithoutRequest(response)
            case .writeContinue:
                HTTPResponse.serializeContinue(into: &outHead)
            case .write:
                writeOutput()
            case .pullPiece:
                pullPiece()
            case .armTimer(let at):
                timer?.schedule(deadline: DispatchTime(uptimeNanoseconds: at), leeway: .milliseconds(5))
            case .halfClose:
                Socket.shutdownWrite(fd)
            case .close:
                finalClose()
            }
        }
    }

    /// Reads once and tells the machine what came.
    private func readSocket() {
        let result: IOResult
        do {
            result = try Socket.read(fd, into: loop.readBuffer)
        } catch {
            machine.abort()
            return
        }
        switch result {
        case .wouldBlock:
            machine.readWouldBlock()
        case .processed(0):
            machine.endOfStream()
        case .processed(let count):
            let bytes = UnsafeRawBufferPointer(rebasing: loop.readBuffer[0..<count])
            machine.received(bytes, filledBuffer: count == loop.readBuffer.count)
        }
    }

    /// Hands a complete request to the responder.
    private func dispatch(_ request: HTTPRequest) {
        requestCounter += 1
        let now = DispatchTime.now()
        requestID = HTTPRequestID(headers: request.headers)
        inFlight = InFlight(
            number: requestCounter, method: request.method, target: request.target, version: request.version,
            isHead: request.method == .head, startTime: now)
        let context = HTTPRequestContext(
            remoteAddress: remoteAddress, localAddress: localAddress, connectionID: id, startTime: now,
            requestID: requestID)
        let writer = HTTPResponseWriter(connection: self, requestNumber: requestCounter)
        responder.respond(to: request, context: context, writer: writer)
    }

    /// Answers without a request (parse failure, header timeout, over capacity); the machine closes after it.
    private func respondWithoutRequest(_ response: HTTPResponse) {
        requestCounter += 1
        inFlight = InFlight(
            number: requestCounter, method: HTTPMethod(rawValue: "-"), target: "-", version: .http1_1,
            isHead: false, startTime: .now())
        requestID = HTTPRequestID()
        handleResponse(response, requestNumber: requestCounter)
    }

    /// Called by the writer from any thread. Inline when already on this connection's queue, or on its
    /// loop while the loop handles this connection's socket event (a response the handler had at hand).
    func deliver(_ response: HTTPResponse, requestNumber: Int) {
        if DispatchQueue.getSpecific(key: HTTPConnection.queueKey) == id || (loop.isCurrent && loop.serving == id) {
            handleResponse(response, requestNumber: requestNumber)
            drive()
        } else {
            queue.async { [self] in
                handleResponse(response, requestNumber: requestNumber)
                drive()
            }
        }
    }

    /// Called by the writer from any thread: an interim response to request `requestNumber`, queued while
    /// its final response is awaited and dropped otherwise.
    func deliverInterim(_ response: HTTPResponse, requestNumber: Int) {
        queue.async { [self] in
            // A 1xx is never sent to an HTTP/1.0 client (RFC 9110 §15.2), which could take it for the answer.
            guard let flight = inFlight, flight.number == requestNumber, flight.version != .http1_0,
                machine.interimReady()
            else { return }
            prepareOutput()
            response.serializeInterim(into: &outHead)
            drive()
        }
    }

    /// Leaves the loop's epoll set and closes the descriptor; the timer is cancelled. A response being
    /// written is cut short and its body source cancelled.
    private func finalClose() {
        if let current = stream {
            stream = nil
            current.source.cancel()
        }
        if let flight = inFlight.take() { logAccess(flight, aborted: true) }
        loop.unregister(self)
        close(fd)
        // Dropping the timer drops its handler's reference to this connection.
        timer?.cancel()
        timer = nil
        onClose(self)
    }
}
