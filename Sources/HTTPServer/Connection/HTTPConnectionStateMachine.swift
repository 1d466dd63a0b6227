import HTTPCore

/// The rules of one HTTP/1.1 connection, without its socket: events go in (readiness, bytes read, the
/// end of stream, a response ready, a piece of body queued, a write done or blocked, the timer, a drain),
/// and `nextAction()` says what the connection must do next (read, dispatch, write, pull a piece, arm the
/// timer, half-close, close). `HTTPConnection` performs the actions on the socket and reports back.
///
/// The state is a few enums, each with only the cases that can happen (docs/ARCHITECTURE.md has the
/// diagram): `lifecycle` (open, draining, closing, lingering, closed), `input` (what the socket may still
/// hold), `intake` (what becomes of the bytes), `exchange` (the request being answered), `output` (the
/// bytes being written) and `deadline` (the one timeout running). Requests parsed ahead wait in `pending`.
struct HTTPConnectionStateMachine<Clock: HTTPConnectionClock> {
    /// The limits and timeouts, in the units the machine uses.
    struct Limits {
        var maxPipelinedRequests: Int
        var idleTimeout: UInt64
        var headerReadTimeout: UInt64
        var writeTimeout: UInt64
        /// How long a closing connection reads and discards before it closes anyway.
        var lingerTimeout: UInt64
        /// The header-read timeout as configured, for the 408's detail.
        var headerReadSeconds: Double

        init(_ configuration: HTTPServerConfiguration) {
            maxPipelinedRequests = max(configuration.maxPipelinedRequests, 1)
            idleTimeout = Self.nanoseconds(configuration.idleTimeout)
            headerReadTimeout = Self.nanoseconds(configuration.headerReadTimeout)
            writeTimeout = Self.nanoseconds(configuration.writeTimeout)
            lingerTimeout = Self.nanoseconds(min(2, configuration.idleTimeout))
            headerReadSeconds = configuration.headerReadTimeout
        }

        private static func nanoseconds(_ seconds: Double) -> UInt64 { UInt64(max(seconds, 0) * 1_000_000_000) }
    }

    enum Lifecycle: Equatable {
        /// Serving requests, keeping the connection alive between them.
        case open
        /// Shutdown has begun: the response under way says `Connection: close`, an idle connection closes.
        case draining
        /// The connection must end; `graceful` half-closes and lingers first, otherwise it closes at once.
        case closing(graceful: Bool)
        /// The output is shut down; bytes are read and discarded until the peer closes or the deadline,
        /// so that unread request bytes do not turn the close into a reset that destroys the last response.
        case lingering
        case closed
    }

    /// What the socket may still hold. Readiness is edge-triggered: an edge not acted on is remembered.
    enum Input: Equatable {
        /// The last read came up short (or would block): only a new edge says there is more.
        case waitingForEdge
        /// An edge came, or the last read filled the buffer: bytes may be waiting.
        case ready
        /// The peer's close (or a socket error) was reported: read until `read` returns 0, edge or not,
        /// because the end of stream behind the last bytes brings no edge of its own.
        case readyUntilEnd
        /// `read` returned 0: the peer sends nothing more.
        case ended
    }

    /// What becomes of the bytes read.
    enum Intake: Equatable {
        /// They are parsed into requests.
        case accepting
        /// As `accepting`, and the request being received asked for `100 Continue`, owed once the
        /// connection has nothing else to send (a request behind the one in flight waits its turn).
        case continueOwed
        /// A request failed to parse or timed out: nothing after it is parsed or executed.
        case failed
    }

    /// How far the response to the current request has gone.
    enum ResponseBody: Equatable {
        /// The output holds the rest of the response.
        case last
        /// A stream follows what the output holds: the next piece is pulled once it is written.
        case streaming
        /// A piece was asked for; the stream has not delivered it yet.
        case awaitingPiece
    }

    /// The request being answered; responses go out in order, one at a time.
    enum Exchange: Equatable {
        case none
        /// The request was handed to the responder (or an answer without a request is on its way).
        case awaitingResponse(keepAlive: Bool)
        /// The response is being written.
        case responding(keepAlive: Bool, body: ResponseBody)
    }

    /// The bytes the connection holds for the socket.
    enum Output: Equatable {
        case empty
        /// Bytes to write.
        case pending
        /// The last write would have blocked: the next writability edge resumes it.
        case blocked
    }

    /// The one timeout running, with the monotonic time it expires at.
    enum Deadline: Equatable {
        case none
        /// Waiting for the first byte of the next request.
        case idle(at: UInt64)
        /// A request's head is arriving (not moved by later bytes), or its body stalled this long.
        case header(at: UInt64)
        /// A write has made no progress.
        case write(at: UInt64)
        /// The lingering close.
        case linger(at: UInt64)

        var expiry: UInt64 {
            switch self {
            case .none: .max
            case .idle(let at), .header(let at), .write(let at), .linger(let at): at
            }
        }
    }

    /// A request parsed ahead, or an answer the server owes without one (a parse failure, a timeout, a refusal).
    enum Pending {
        case request(HTTPRequest)
        case answer(HTTPResponse)
    }

    /// What the connection must do next.
    enum Action {
        /// Nothing until the next event.
        case none
        /// Read from the socket and report `received`, `readWouldBlock`, `endOfStream` or `abort`.
        case read
        /// Hand the request to the responder; its answer comes back through `responseReady`.
        case dispatch(HTTPRequest)
        /// Send this answer, which has no request; the connection closes after it.
        case answer(HTTPResponse)
        /// Queue `100 Continue` in the output (a `write` follows).
        case writeContinue
        /// Write the output and report `written` or `writeBlocked`.
        case write
        /// Ask the response's stream for its next piece.
        case pullPiece
        /// Make the timer fire at this monotonic time.
        case armTimer(at: UInt64)
        /// Shut down the sending side; the connection lingers.
        case halfClose
        /// Close the socket and release the connection.
        case close
    }

    let limits: Limits
    var clock: Clock
    private(set) var parser: HTTPRequestParser
    private(set) var lifecycle = Lifecycle.open
    private(set) var input = Input.waitingForEdge
    private(set) var intake = Intake.accepting
    private(set) var exchange = Exchange.none
    private(set) var output = Output.empty
    private(set) var deadline = Deadline.none
    /// When the timer will fire; a later deadline is only recorded, and the timer re-arms when it fires early.
    private var timerFiresAt = UInt64.max
    private var pending: [Pending] = []
    private var pendingHead = 0

    init(limits: Limits, parserLimits: HTTPParserLimits, clock: Clock) {
        self.limits = limits
        self.clock = clock
        self.parser = HTTPRequestParser(limits: parserLimits)
    }

    /// The number of requests (and owed answers) waiting behind the current exchange.
    var pendingCount: Int { pending.count - pendingHead }

    /// Whether the socket may be read now: never once closed or after a failure; while lingering, always
    /// (to discard); otherwise only while the pipeline has room.
    var mayRead: Bool {
        switch lifecycle {
        case .closed, .closing: false
        case .lingering: true
        case .open, .draining: intake != .failed && pendingCount < limits.maxPipelinedRequests
        }
    }
}

// MARK: - Events

extension HTTPConnectionStateMachine {
    /// The connection was accepted. A client sends its request right behind the handshake, so the socket is
    /// read at once rather than on the loop's next round.
    /// - Parameter rejection: an answer to send before closing (the server is over capacity); nothing is read.
    mutating func start(rejecting rejection: HTTPResponse? = nil) {
        if let rejection {
            intake = .failed
            pending.append(.answer(rejection))
        } else {
            input = .ready
            deadline = .idle(at: clock.nanoseconds &+ limits.idleTimeout)
        }
    }

    /// The socket became readable, or the peer closed its side (`peerClosing`: `EPOLLRDHUP`, an error).
    mutating func readable(peerClosing: Bool) {
        switch input {
        case .ended, .readyUntilEnd: return
        case .waitingForEdge, .ready: input = peerClosing ? .readyUntilEnd : .ready
        }
    }

    /// The socket has room to write again (or failed, which the next write reports).
    mutating func writable() {
        if output == .blocked { output = .pending }
    }

    /// A read returned bytes.
    /// - Parameters:
    ///   - bytes: what was read; the parser copies what it keeps.
    ///   - filledBuffer: whether the read filled the buffer, so more may be waiting without a new edge.
    mutating func received(_ bytes: UnsafeRawBufferPointer, filledBuffer: Bool) {
        if !filledBuffer && input == .ready { input = .waitingForEdge }
        // After a failure, or while lingering, bytes are drained and never executed.
        guard intake != .failed, lifecycle == .open || lifecycle == .draining else { return }
        parser.append(bytes)
        parseAhead()
        settleIfIdle()
    }

    /// A read would have blocked: the socket is empty until the next edge. A draining connection that
    /// found nothing more closes if it is idle.
    mutating func readWouldBlock() {
        if input != .ended { input = .waitingForEdge }
        if lifecycle == .draining { settleIfIdle() }
    }

    /// A read returned 0: the peer sends nothing more. Requests already received are still answered.
    mutating func endOfStream() {
        input = .ended
        if lifecycle == .lingering {
            lifecycle = .closing(graceful: false)
            return
        }
        settleIfIdle()
    }

    /// Shutdown has begun. An idle connection reads what the socket already holds (a request the client
    /// has sent is served, a partial one gets its time) and closes if nothing came.
    mutating func drain() {
        guard lifecycle == .open else { return }
        lifecycle = .draining
        if exchange == .none && pendingCount == 0 && parser.isIdle && input != .ended { input = .ready }
    }

    /// Something failed that leaves the connection unusable (a socket error, a body that broke its
    /// framing, the server's grace ran out): it closes at once.
    mutating func abort() {
        if lifecycle != .closed { lifecycle = .closing(graceful: false) }
    }

    /// The responder's answer to the current request is at hand.
    /// - Parameters:
    ///   - closing: the answer needs the connection closed after it (asked for, close-delimited, shutdown).
    ///   - streams: a stream follows the head; its first piece is being asked for.
    /// - Returns: whether the connection stays open after this response (the head says so), or `nil` when
    ///   no answer is awaited (the connection closed meanwhile): the response is dropped.
    mutating func responseReady(closing: Bool, streams: Bool) -> Bool? {
        guard case .awaitingResponse(let keepAlive) = exchange, lifecycle == .open || lifecycle == .draining else {
            return nil
        }
        let staysOpen = keepAlive && !closing && lifecycle == .open
        exchange = .responding(keepAlive: staysOpen, body: streams ? .awaitingPiece : .last)
        queueOutput()
        return staysOpen
    }

    /// An interim (1xx) response to the current request may be queued: only while its final response is
    /// awaited (once that is being written, a 1xx would land inside it), and never on a connection that is
    /// closing.
    /// - Returns: whether to queue it; the caller appends it to the output, and a `write` follows.
    mutating func interimReady() -> Bool {
        guard case .awaitingResponse = exchange, lifecycle == .open || lifecycle == .draining else { return false }
        queueOutput()
        return true
    }

    /// A piece of the streamed body is queued in the output.
    /// - Parameter last: nothing follows it (the announced length is met, or it ends the chunked coding).
    mutating func pieceQueued(last: Bool) {
        guard case .responding(let keepAlive, .awaitingPiece) = exchange else { return }
        exchange = .responding(keepAlive: keepAlive, body: last ? .last : .streaming)
        queueOutput()
    }

    /// The stream gave an empty piece: ask again once the output is written.
    mutating func pieceWasEmpty() {
        guard case .responding(let keepAlive, .awaitingPiece) = exchange else { return }
        exchange = .responding(keepAlive: keepAlive, body: .streaming)
    }

    /// The stream ended with nothing more to send (its framing needs no terminator).
    /// - Returns: whether the response is complete now (nothing left to write): the caller logs it.
    mutating func streamEnded() -> Bool {
        guard case .responding(let keepAlive, .awaitingPiece) = exchange else { return false }
        exchange = .responding(keepAlive: keepAlive, body: .last)
        guard output == .empty else { return false }
        finishResponse()
        return true
    }

    /// The output was written out whole.
    /// - Returns: whether that completed the response: the caller logs it.
    mutating func written() -> Bool {
        output = .empty
        if case .write = deadline { deadline = .none }
        guard case .responding(_, .last) = exchange else {
            // A `100 Continue` that waited for the socket held the write deadline in place of the body's:
            // the body is awaited under the header timeout again.
            settleIfIdle()
            return false
        }
        finishResponse()
        return true
    }

    /// A write would have blocked. Each wait restarts the write deadline: the limit is on time without progress.
    mutating func writeBlocked() {
        output = .blocked
        deadline = .write(at: clock.nanoseconds &+ limits.writeTimeout)
    }

    /// The timer fired. Before the deadline (it was moved later) it only re-arms; at or after it, the
    /// deadline's rule applies.
    mutating func timerFired() {
        timerFiresAt = .max
        guard lifecycle != .closed, deadline != .none, clock.nanoseconds >= deadline.expiry else { return }
        let expired = deadline
        deadline = .none
        switch expired {
        case .none:
            break
        case .idle, .linger, .write:
            lifecycle = .closing(graceful: false)
        case .header:
            guard lifecycle == .open || lifecycle == .draining, exchange == .none else { return }
            // The half-received request is abandoned; nothing after it may execute.
            intake = .failed
            let problem = ProblemDetails.make(
                status: .requestTimeout, type: HTTPProblemType.requestTimeout,
                detail: "The request was not complete within \(limits.headerReadSeconds) s.")
            pending.append(.answer(problem.makeResponse()))
        }
    }
}

// MARK: - The next action

extension HTTPConnectionStateMachine {
    /// What the connection must do now; `.none` when it waits for an event. Call until `.none` after
    /// each event.
    mutating func nextAction() -> Action {
        switch lifecycle {
        case .closed:
            return .none
        case .closing(graceful: false):
            return closeNow()
        case .closing(graceful: true):
            if input == .ended { return closeNow() }
            lifecycle = .lingering
            deadline = .linger(at: clock.nanoseconds &+ limits.lingerTimeout)
            return .halfClose
        case .open, .draining, .lingering:
            break
        }
        if exchange == .none && output == .empty && lifecycle != .lingering {
            if pendingCount > 0 { return takeNext() }
            if intake == .continueOwed {
                intake = .accepting
                output = .pending
                return .writeContinue
            }
        }
        if output == .pending { return .write }
        if case .responding(let keepAlive, .streaming) = exchange, output == .empty {
            exchange = .responding(keepAlive: keepAlive, body: .awaitingPiece)
            return .pullPiece
        }
        if input == .ready || input == .readyUntilEnd, mayRead { return .read }
        let expiry = deadline.expiry
        if expiry < timerFiresAt {
            timerFiresAt = expiry
            return .armTimer(at: expiry)
        }
        return .none
    }

    private mutating func closeNow() -> Action {
        lifecycle = .closed
        deadline = .none
        exchange = .none
        return .close
    }

    /// Starts the next exchange: dispatches a request, or sends an answer owed without one.
    private mutating func takeNext() -> Action {
        let next = pending[pendingHead]
        pendingHead += 1
        if pendingHead == pending.count {
            pending.removeAll(keepingCapacity: true)
            pendingHead = 0
        }
        deadline = .none
        // Room in the pipeline again: the parser may hold more requests.
        parseAhead()
        switch next {
        case .request(let request):
            exchange = .awaitingResponse(keepAlive: request.wantsKeepAlive)
            return .dispatch(request)
        case .answer(let response):
            exchange = .awaitingResponse(keepAlive: false)
            return .answer(response)
        }
    }

    /// Takes complete requests from the parser while the pipeline has room.
    private mutating func parseAhead() {
        while intake != .failed && pendingCount < limits.maxPipelinedRequests {
            switch parser.next() {
            case .request(let request):
                pending.append(.request(request))
                intake = .accepting
            case .needMoreData:
                return
            case .expectsContinue:
                intake = .continueOwed
            case .failure(let error):
                let problem = ProblemDetails.make(
                    status: error.status, type: HTTPProblemType.parseFailure(status: error.status),
                    detail: error.reason)
                pending.append(.answer(problem.makeResponse()))
                intake = .failed
                return
            }
        }
    }

    private mutating func queueOutput() {
        if output == .empty { output = .pending }
    }

    /// The last byte of a response is written: serve the next request, wait for one, or close.
    private mutating func finishResponse() {
        guard case .responding(let keepAlive, _) = exchange else { return }
        exchange = .none
        guard keepAlive, lifecycle == .open || lifecycle == .draining else {
            if lifecycle == .open || lifecycle == .draining { lifecycle = .closing(graceful: true) }
            return
        }
        settleIfIdle()
    }

    /// With nothing in flight or waiting, the connection waits for a request, closes, or times out.
    ///
    /// Between requests the idle timeout runs. From the first byte of a request the header-read timeout runs
    /// and is not moved by later bytes (slowloris); once the head is complete, the body must make progress
    /// at least once per header-read timeout.
    private mutating func settleIfIdle() {
        guard exchange == .none, pendingCount == 0, lifecycle == .open || lifecycle == .draining else { return }
        let betweenRequests = parser.isIdle
        // A half-sent request can never complete once the peer stopped sending; while draining, one that has
        // begun may still finish.
        if input == .ended || (betweenRequests && lifecycle == .draining) {
            lifecycle = .closing(graceful: false)
            return
        }
        // While a `100 Continue` waits for the socket, the write deadline runs; `written()` settles again.
        if output == .blocked { return }
        if betweenRequests {
            if case .idle = deadline { return }
            deadline = .idle(at: clock.nanoseconds &+ limits.idleTimeout)
        } else if parser.isReadingBody {
            deadline = .header(at: clock.nanoseconds &+ limits.headerReadTimeout)
        } else if case .header = deadline {
            return
        } else {
            deadline = .header(at: clock.nanoseconds &+ limits.headerReadTimeout)
        }
    }
}
