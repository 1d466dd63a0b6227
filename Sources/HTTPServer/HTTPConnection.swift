import CLinux
import Dispatch
import Glibc
import HTTPCore

/// One accepted TCP connection: reads and parses requests, hands them to the responder one at a time,
/// and writes the answers in order.
///
/// Every mutable member belongs to `queue`, a serial queue that targets one of the server's shared event
/// loops: the loop reports socket readiness on its own queue (serialized with `queue`), the timer fires
/// on `queue`, and the writer hops onto it. Hence `@unchecked Sendable`.
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
    let configuration: HTTPServerConfiguration
    let responder: any HTTPResponder
    let accessLog: (@Sendable (HTTPAccessRecord) -> Void)?
    let drainSignal: DrainSignal
    /// Told once when the connection has closed; the server forgets it then.
    let onClose: @Sendable (HTTPConnection) -> Void

    var parser: HTTPRequestParser
    /// The event loop this connection's queue targets; its read buffer is shared with the loop's other
    /// connections (see `EventLoop`).
    let loop: EventLoop
    var timer: (any DispatchSourceTimer)?
    /// Reading is paused (pipeline full, parse failure, peer closed): readiness is remembered, not acted on.
    var readSuspended = false
    /// The socket may have unread bytes: set by a readiness edge, cleared by a short read or `EAGAIN`.
    /// The epoll set is edge-triggered, so a paused reader must remember the edge it did not act on.
    var readReady = false
    /// The peer's close (or a socket error) was reported: a short read no longer means nothing is left,
    /// because the end of stream behind the bytes brings no edge of its own.
    var endPending = false
    /// A write returned `EAGAIN`; the next writability edge resumes it.
    var writeWaiting = false
    var registered = false

    /// Requests (or the parse failure that ends the connection) waiting for the one in flight.
    var pending: [PendingRequest] = []
    var pendingHead = 0
    var inFlight: InFlight?
    /// The identifier of the request in flight (or of the last one): written on its response and logged.
    /// Kept here rather than in `InFlight`, which is copied several times per request.
    var requestID = HTTPRequestID()
    var stream: BodyStream?
    var requestCounter = 0
    /// The parser failed; nothing after the failure is read or executed.
    var parserFailed = false
    var peerClosed = false
    var draining = false
    var continueOwed = false
    var state = State.open

    // The output: a head (status line and fields, or a chunk-size line) and content, written together.
    var outHead: [UInt8] = []
    var outBody: [UInt8] = []
    var headSent = 0
    var bodySent = 0
    /// Content sent from a file after the head and body buffers (`sendfile`), and how much of it went.
    var outFile: (any HTTPFileRegion)?
    var fileSent = 0

    // The one timer, re-armed lazily: moving a deadline later costs nothing until it fires.
    var deadline: UInt64 = .max
    var deadlinePurpose = DeadlinePurpose.none
    var timerFiresAt: UInt64 = .max

    // Re-entrancy guard for `pump()` (an inline answer finishes inside the dispatch that asked for it).
    var pumping = false
    var pumpAgain = false

    enum State { case open, lingering, closed }
    enum DeadlinePurpose { case none, idle, header, write, linger }

    enum PendingRequest {
        case request(HTTPRequest)
        case failure(HTTPParseError)
    }

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
        self.configuration = configuration
        self.responder = responder
        self.accessLog = accessLog
        self.drainSignal = drainSignal
        self.onClose = onClose
        self.parser = HTTPRequestParser(limits: configuration.parserLimits)
        queue.setSpecific(key: HTTPConnection.queueKey, value: id)
    }

    /// Registers the socket with the loop, sets up the timer and starts reading. Call on `queue`.
    /// - Parameter rejection: when given, the connection answers it at once and closes (over capacity).
    func start(rejecting rejection: HTTPResponse? = nil) {
        dispatchPrecondition(condition: .onQueue(queue))
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [self] in timerFired() }
        self.timer = timer
        timer.activate()
        do {
            try loop.register(self)
            registered = true
        } catch {
            abort()
            return
        }
        if let rejection {
            respondWithoutRequest(rejection)
        } else {
            setDeadline(.idle, after: configuration.idleTimeout)
            // A client sends its request right behind the handshake, so it is usually here already: read
            // it now instead of on the loop's next epoll round, a Dispatch manager round trip later.
            readReady = true
            handleReadable()
        }
    }

    /// The loop saw the socket become readable, writable, or closed by the peer (`EPOLL*` bits).
    func socketReady(events: UInt32) {
        let failed = events & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0
        if events & EPOLLRDHUP.rawValue != 0 || failed { endPending = true }
        if events & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue) != 0 || failed {
            readReady = true
            if !readSuspended { handleReadable() }
        }
        if writeWaiting && (events & EPOLLOUT.rawValue != 0 || failed) && state != .closed {
            writeOutput()
        }
    }

    /// Reads what the socket has, feeds the parser and serves what it completed; stops at `EAGAIN`, at a
    /// short read (the socket is then empty, and new bytes bring a new edge) unless the peer's close is
    /// still to be read, or when reading is paused.
    func handleReadable() {
        repeat {
            if state == .closed { return }
            let result: IOResult
            do {
                result = try Socket.read(fd, into: loop.readBuffer)
            } catch {
                abort()
                return
            }
            switch result {
            case .wouldBlock:
                readReady = false
                return
            case .processed(0):
                readReady = false
                peerClosed = true
                setReading(false)
                if state == .lingering {
                    finalClose()
                    return
                }
                pump()
                return
            case .processed(let count):
                if count < loop.readBuffer.count && !endPending { readReady = false }
                // After a parse failure or during the lingering close, bytes are drained, never executed.
                if state == .lingering || parserFailed { continue }
                parser.append(UnsafeRawBufferPointer(rebasing: loop.readBuffer[0..<count]))
                pump()
            }
        } while readReady && !readSuspended
    }

    /// Moves the connection forward until it has to wait: takes complete requests from the parser and
    /// serves the next one when none is in flight.
    func pump() {
        if pumping {
            pumpAgain = true
            return
        }
        pumping = true
        repeat {
            pumpAgain = false
            step()
        } while pumpAgain && state == .open
        pumping = false
        if state == .open && inFlight == nil && pendingCount == 0 {
            becameIdle()
        }
    }

    private var pendingCount: Int { pending.count - pendingHead }

    private func step() {
        parseAhead()
        guard inFlight == nil, state == .open else { return }
        if pendingCount > 0 {
            let next = pending[pendingHead]
            pendingHead += 1
            if pendingHead == pending.count {
                pending.removeAll(keepingCapacity: true)
                pendingHead = 0
            }
            switch next {
            case .request(let request):
                dispatch(request)
            case .failure(let error):
                let problem = ProblemDetails.make(
                    status: error.status, type: HTTPProblemType.parseFailure(status: error.status), detail: error.reason
                )
                respondWithoutRequest(problem.makeResponse())
            }
            if !parserFailed && !peerClosed && readSuspended { setReading(true) }
        } else if continueOwed && outputIsEmpty {
            continueOwed = false
            HTTPResponse.serializeContinue(into: &outHead)
            writeOutput()
        }
    }

    /// Takes complete requests from the parser while there is room in the pipeline.
    private func parseAhead() {
        while !parserFailed && pendingCount < configuration.maxPipelinedRequests {
            switch parser.next() {
            case .request(let request):
                pending.append(.request(request))
                continueOwed = false
            case .needMoreData:
                return
            case .expectsContinue:
                // Only the next request to be served may be told to go on; one behind the one in flight
                // gets its 100 once the connection is free.
                continueOwed = true
            case .failure(let error):
                pending.append(.failure(error))
                parserFailed = true
                setReading(false)
                return
            }
        }
        if pendingCount >= configuration.maxPipelinedRequests { setReading(false) }
    }

    /// Nothing is in flight or waiting: the connection waits for a request, closes, or times out.
    ///
    /// Between requests the idle timeout runs. From the first byte of a request the header-read timeout
    /// runs and is not moved by later bytes (slowloris); once the head is complete, the body must make
    /// progress at least once per header-read timeout.
    private func becameIdle() {
        let betweenRequests = parser.isIdle
        // A half-sent request can never complete once the peer stopped sending; while draining, one that
        // has begun may still finish.
        if peerClosed || (betweenRequests && (draining || drainSignal.isDraining)) {
            finalClose()
            return
        }
        if betweenRequests {
            if deadlinePurpose != .idle { setDeadline(.idle, after: configuration.idleTimeout) }
        } else if parser.isReadingBody {
            setDeadline(.header, after: configuration.headerReadTimeout)
        } else if deadlinePurpose != .header {
            setDeadline(.header, after: configuration.headerReadTimeout)
        }
    }

    /// Hands a complete request to the responder.
    private func dispatch(_ request: HTTPRequest) {
        requestCounter += 1
        let keepAlive =
            request.headers.contains("Connection") ? request.wantsKeepAlive : request.version == .http1_1
        let now = DispatchTime.now()
        requestID = HTTPRequestID(headers: request.headers)
        inFlight = InFlight(
            number: requestCounter, method: request.method, target: request.target, version: request.version,
            isHead: request.method == .head, keepAlive: keepAlive, startTime: now)
        clearDeadline()
        let context = HTTPRequestContext(
            remoteAddress: remoteAddress, localAddress: localAddress, connectionID: id, startTime: now,
            requestID: requestID)
        let writer = HTTPResponseWriter(connection: self, requestNumber: requestCounter)
        responder.respond(to: request, context: context, writer: writer)
    }

    /// Answers without a request (parse failure, header timeout, over capacity), then closes.
    func respondWithoutRequest(_ response: HTTPResponse) {
        requestCounter += 1
        inFlight = InFlight(
            number: requestCounter, method: HTTPMethod(rawValue: "-"), target: "-", version: .http1_1,
            isHead: false, keepAlive: false, startTime: .now())
        requestID = HTTPRequestID()
        clearDeadline()
        handleResponse(response, requestNumber: requestCounter)
    }

    /// Called by the writer from any thread. Inline when already on this connection's queue, or on its
    /// loop while the loop handles this connection's socket event (a response the handler had at hand).
    func deliver(_ response: HTTPResponse, requestNumber: Int) {
        if DispatchQueue.getSpecific(key: HTTPConnection.queueKey) == id || (loop.isCurrent && loop.serving == id) {
            handleResponse(response, requestNumber: requestNumber)
        } else {
            queue.async { [self] in handleResponse(response, requestNumber: requestNumber) }
        }
    }

    /// Resumes or pauses reading. A resumed reader with an edge it did not act on reads on its next turn
    /// (not inline: the caller may be in the middle of `pump`).
    func setReading(_ on: Bool) {
        guard state != .closed else { return }
        if on && readSuspended {
            readSuspended = false
            if readReady {
                queue.async { [self] in
                    if readReady && !readSuspended { handleReadable() }
                }
            }
        } else if !on && !readSuspended {
            readSuspended = true
        }
    }
}
