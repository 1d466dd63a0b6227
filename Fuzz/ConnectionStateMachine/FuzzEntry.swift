// libFuzzer entry for HTTPServer's connection state machine (Fuzz/run.sh ConnectionStateMachine). A broken
// invariant is a finding (`fatalError` with what broke); a connection that closes is an ordinary outcome.
//
// The entry plays every part `HTTPConnection` plays around `HTTPConnectionStateMachine`: a client that
// composes request bytes (well-formed, pipelined, malformed, with `Expect: 100-continue`, raw fuzz bytes)
// and sends them in pieces cut anywhere, and may half-close; a socket that returns at most a fixed
// buffer per read, may fail a read, and refuses writes until the client reads; a responder that answers
// late or inline, closing or not, whole or as a stream; a stream whose pieces come late, empty, last, or
// fail; a drain; a socket error; and a clock moved by hand, whose one timer fires when it is due. After
// every event it performs the machine's actions as the connection does, and checks:
//
// 1. One exchange at a time: nothing is dispatched or answered while a response is owed or being written,
//    and each response is accepted once (a late or second `responseReady` is refused, and does nothing).
// 2. Every request is dispatched once, in the order sent: the dispatched requests are a prefix of what a
//    reference parser makes of the same bytes. An answer without a request is the reference's own parse
//    failure at the same place, a 408 after the header deadline expired, or the 503 of a refused start;
//    nothing is dispatched or answered after it.
// 3. No read once a close is decided: never after an answer without a request until the half-close, never
//    while the pipeline is full (more than `maxPipelined` requests are never held), never after close;
//    bytes read while lingering are discarded, never parsed.
// 4. `100 Continue` is sent at most once per request, only for a request whose head asked for it and whose
//    body has not all arrived, only while no response is owed or being written (so never after or inside
//    a response), never after the half-close; and when the connection is quiet, an owed one is sent.
// 5. Keep-alive: `responseReady` says the connection stays open exactly when the request wants it, the
//    response does not close it and no drain began; a response that ends the connection is followed at
//    once by the half-close (or the close); nothing is dispatched after it; after a drain at most one
//    exchange starts.
// 6. Output: a write only with bytes queued, never while blocked with no writability since, never after
//    the half-close; a piece is pulled only from a streaming response whose last piece is written, one at
//    a time; `written` and `streamEnded` report a response complete exactly when its last byte went.
// 7. Timers: whenever the machine waits with a deadline, the timer is armed at or before it; an expired
//    idle, write or linger deadline closes at once, and so does an abort.
// 8. Interim (1xx) responses are taken exactly while a response is owed on a connection that is not
//    closing, and queued like any output (never inside or after a response).
// 9. Nothing after close: every later event (a late response, a piece, an edge, the timer) asks for nothing.
// 10. No spinning and no stranded work: at most 10 000 actions per event besides reads that took bytes;
//    when the client stops sending, the responder answers everything and writes go through, an open
//    connection has read every byte it was told about (no edge is lost), dispatched every request the
//    reference parsed and sent any `100` owed; and once time moves, every connection closes.
//
// Input: byte 0 the pipeline bound (1…4), byte 1 the read buffer size, byte 2 the timeouts, byte 3
// whether the start is refused (503); then events, one byte each with operand bytes after some.
import HTTPCore

@testable import HTTPServer

/// A monotonic clock moved by hand.
final class FuzzClock: HTTPConnectionClock {
    var nanoseconds: UInt64 = 1_000_000_000
}

/// Small parser limits, so that every limit is reached by inputs of a few hundred bytes.
let parserLimits = HTTPParserLimits(
    maxRequestLineBytes: 64, maxHeaderBytes: 256, maxHeaderCount: 6, maxBodyBytes: 64,
    maxEmptyLinesBeforeRequest: 4, maxChunkExtensionBytes: 16, maxTrailerBytes: 64)

/// Pieces a client composes its stream from; cut anywhere when sent.
let fragments: [[UInt8]] = [
    "GET /a HTTP/1.1\r\nHost: x\r\n\r\n",
    "GET /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    "GET /c HTTP/1.0\r\n\r\n",
    "GET /d HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
    "POST /e HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello",
    "POST /f HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n",
    "body",
    "POST /g HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
    "POST /h HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\nxyz",
    "HEAD /i HTTP/1.1\r\nHost: x\r\n\r\n",
    "GET /j HTTP/9.9\r\nHost: x\r\n\r\n",
    "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
    "\r\n",
    "NOT A REQUEST\r\n\r\n",
    "GET /k HTTP/1.1\r\n",
    "Host: x\r\n\r\n",
    "POST /l HTTP/1.1\r\nHost: x\r\nContent-Length: 900\r\n\r\n",
    "POST /m HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n",
    "2\r\nab\r\n0\r\n\r\n",
].map { Array($0.utf8) }

/// `precondition` that keeps its message in optimized builds, so a finding says what broke.
func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}

/// The fuzz input read front to back; zeros once it runs out.
struct InputBytes {
    let bytes: [UInt8]
    var index = 0

    var isEmpty: Bool { index >= bytes.count }

    mutating func next() -> UInt8 {
        defer { index += 1 }
        return index < bytes.count ? bytes[index] : 0
    }
}

/// A parser fed every byte the machine was given to parse, drained at once: what the client's bytes mean.
struct ReferenceParse {
    var parser = HTTPRequestParser(limits: parserLimits)
    var requests: [HTTPRequest] = []
    var failure: HTTPParseError?
    /// The index of the request whose head asked for `100 Continue`, once its head is complete.
    var continueAskedBy: Int?

    mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        parser.append(bytes)
        while failure == nil {
            switch parser.next() {
            case .request(let request): requests.append(request)
            case .needMoreData: return
            case .expectsContinue: continueAskedBy = requests.count
            case .failure(let error): failure = error
            }
        }
    }
}

/// The connection's surroundings and what they have seen, with the invariants checked on each step.
final class World {
    typealias Machine = HTTPConnectionStateMachine<FuzzClock>

    /// The exchange under way as the connection sees it.
    enum Exchange {
        case none
        /// Dispatched (or answered without a request); the response is not ready yet.
        case awaiting(request: HTTPRequest?)
        /// The response is queued; `done` once its last byte is queued (no stream, or the stream ended).
        case responding(staysOpen: Bool, done: Bool, pieceAsked: Bool)
    }

    let clock = FuzzClock()
    var machine: Machine
    let maxPipelined: Int
    let readBuffer: Int
    let refusedStart: Bool
    var reference = ReferenceParse()

    // The client and the socket.
    var composed: [UInt8] = []
    var inbox: [UInt8] = []
    var peerShut = false
    var readFails = false
    var writeRoom = true
    var writeBlocked = false

    // What the connection did.
    var exchange = Exchange.none
    var hasOutput = false
    var exchangesStarted = 0
    var dispatched = 0
    var answered = false
    var drained = false
    var startedAfterDrain = 0
    var halfClosed = false
    var closed = false
    var timerAt: UInt64?
    var continuesSent: Set<Int> = []
    var headerDeadlineExpired = false
    /// A response that ends the connection was written: the next action must half-close or close.
    var mustEnd = false

    // The responder.
    var answersInline = false
    var inlineClosing = false
    var inlineStreams = false

    init(configuration bytes: inout InputBytes) {
        maxPipelined = 1 + Int(bytes.next() % 4)
        readBuffer = [1, 2, 3, 7, 16, 64, 512, 4096][Int(bytes.next() % 8)]
        let timeouts = bytes.next()
        let configuration = HTTPServerConfiguration(
            headerReadTimeout: Double(1 + timeouts % 4), idleTimeout: Double(1 + (timeouts >> 2) % 8),
            writeTimeout: Double(1 + (timeouts >> 5) % 4), maxPipelinedRequests: maxPipelined)
        refusedStart = bytes.next() % 8 == 0
        machine = Machine(limits: .init(configuration), parserLimits: parserLimits, clock: clock)
    }

    // MARK: Events

    func start() {
        machine.start(rejecting: refusedStart ? HTTPResponse(status: .serviceUnavailable) : nil)
        drive()
    }

    /// The client sends `count` of its composed bytes (all, when nil); the socket reports an edge.
    func send(_ count: Int?) {
        guard !peerShut, !composed.isEmpty else { return }
        let taken = min(count ?? composed.count, composed.count)
        inbox += composed[..<taken]
        composed.removeFirst(taken)
        edge(peerClosing: false)
    }

    func edge(peerClosing: Bool) {
        machine.readable(peerClosing: peerClosing)
        drive()
    }

    func shutPeer() {
        guard !peerShut else { return }
        peerShut = true
        edge(peerClosing: true)
    }

    /// The client reads what the socket holds: writes go through again, and EPOLLOUT says so.
    func clientReads() {
        writeRoom = true
        writable()
    }

    func writable() {
        writeBlocked = false
        machine.writable()
        drive()
    }

    func respond(closing: Bool, streams: Bool) {
        switch exchange {
        case .awaiting(let request):
            deliverResponse(to: request, closing: closing, streams: streams)
        case .none, .responding:
            // A late or second response is refused and does nothing.
            require(machine.responseReady(closing: closing, streams: streams) == nil, "a second response accepted")
        }
        drive()
    }

    /// The responder sends an interim (1xx) response. It is taken exactly while the final response is owed
    /// on a connection that is not closing (never inside or after a response), and then queued.
    func interim() {
        let accepted = machine.interimReady()
        var owed = false
        if case .awaiting = exchange { owed = true }
        let open = machine.lifecycle == .open || machine.lifecycle == .draining
        require(accepted == (owed && open && !closed), "interim accepted: \(accepted), owed \(owed), open \(open)")
        if accepted { hasOutput = true }
        drive()
    }

    /// The stream delivers what `kind` says, when a piece was asked for.
    func deliverPiece(_ kind: UInt8) {
        guard !closed, case .responding(let staysOpen, false, true) = exchange else { return }
        switch kind % 6 {
        case 0, 1:
            machine.pieceQueued(last: false)
            hasOutput = true
            exchange = .responding(staysOpen: staysOpen, done: false, pieceAsked: false)
        case 2:
            machine.pieceQueued(last: true)
            hasOutput = true
            exchange = .responding(staysOpen: staysOpen, done: true, pieceAsked: false)
        case 3:
            machine.pieceWasEmpty()
            exchange = .responding(staysOpen: staysOpen, done: false, pieceAsked: false)
        case 4:
            // The end of a stream whose framing needs no terminator: complete now unless bytes are queued.
            let complete = machine.streamEnded()
            require(complete == !hasOutput, "streamEnded said \(complete) with output queued: \(hasOutput)")
            exchange = .responding(staysOpen: staysOpen, done: true, pieceAsked: false)
            if complete { responseCompleted(staysOpen: staysOpen) }
        default:
            // The stream failed: the connection cannot finish the response.
            abort()
            return
        }
        drive()
    }

    func advance(_ nanoseconds: UInt64) {
        clock.nanoseconds &+= nanoseconds
        fireTimerIfDue()
    }

    func fireTimerIfDue() {
        guard let at = timerAt, clock.nanoseconds >= at else { return }
        timerAt = nil
        let deadline = machine.deadline
        let expired = deadline != .none && clock.nanoseconds >= deadline.expiry
        machine.timerFired()
        switch deadline {
        case .idle, .write, .linger:
            if expired && !closed { mustClose("an expired \(deadline)") }
        case .header:
            if expired { headerDeadlineExpired = true }
        case .none:
            break
        }
        drive()
    }

    func drain() {
        drained = true
        machine.drain()
        drive()
    }

    func abort() {
        machine.abort()
        if !closed { mustClose("an abort") }
        drive()
    }

    // MARK: The connection's part

    /// Performs the machine's actions until it waits, as `HTTPConnection.drive()` does, checking each.
    func drive() {
        var actions = 0
        // A read that takes bytes is progress: a large inbox read through a small buffer is no spin.
        while actions < 10_000 {
            actions += 1
            let action = machine.nextAction()
            if closed { require(isNone(action), "\(action) after close") }
            if mustEnd {
                switch action {
                case .halfClose, .close: mustEnd = false
                default: fatalError("\(action) after a response that ends the connection")
                }
            }
            switch action {
            case .none:
                checkWaiting()
                return
            case .read:
                if read() { actions -= 1 }
            case .dispatch(let request):
                startExchange()
                require(dispatched < reference.requests.count, "dispatched a request the client did not send")
                require(request == reference.requests[dispatched], "request \(dispatched) dispatched out of order")
                dispatched += 1
                exchange = .awaiting(request: request)
                if answersInline { deliverResponse(to: request, closing: inlineClosing, streams: inlineStreams) }
            case .answer(let response):
                startExchange()
                checkAnswer(response.status.code)
                answered = true
                exchange = .awaiting(request: nil)
                // The connection frames and queues an answer at once.
                deliverResponse(to: nil, closing: drained, streams: false)
            case .writeContinue:
                require(!halfClosed, "100 Continue after the half-close")
                guard case .none = exchange, !hasOutput else { fatalError("100 Continue beside a response") }
                let index = exchangesStarted
                require(reference.continueAskedBy == index, "100 Continue for request \(index), which did not ask")
                require(
                    reference.failure == nil && reference.requests.count == index,
                    "100 Continue for request \(index), whose body has arrived")
                require(continuesSent.insert(index).inserted, "a second 100 Continue for request \(index)")
                hasOutput = true
            case .write:
                write()
            case .pullPiece:
                require(!halfClosed, "a piece pulled after the half-close")
                guard case .responding(let staysOpen, false, false) = exchange, !hasOutput else {
                    fatalError("a piece pulled with \(exchange), output queued: \(hasOutput)")
                }
                exchange = .responding(staysOpen: staysOpen, done: false, pieceAsked: true)
            case .armTimer(let at):
                timerAt = at
            case .halfClose:
                require(!halfClosed, "a second half-close")
                require(!hasOutput, "half-close with output queued")
                halfClosed = true
            case .close:
                closed = true
                exchange = .none
                hasOutput = false
                timerAt = nil
            }
        }
        fatalError("the machine never waits")
    }

    func isNone(_ action: Machine.Action) -> Bool {
        if case .none = action { return true }
        return false
    }

    /// Reads as the socket would; whether bytes came.
    func read() -> Bool {
        require(!closed, "a read after close")
        require(!answered || halfClosed, "a read after an answer without a request, before the half-close")
        require(
            halfClosed || machine.pendingCount < maxPipelined, "a read with \(machine.pendingCount) requests held")
        if readFails {
            readFails = false
            machine.abort()
            mustClose("a failed read")
            return false
        }
        let count = min(inbox.count, readBuffer)
        guard count > 0 else {
            if peerShut { machine.endOfStream() } else { machine.readWouldBlock() }
            return false
        }
        let bytes = Array(inbox[..<count])
        inbox.removeFirst(count)
        bytes.withUnsafeBytes { buffer in
            // Bytes read after the half-close are discarded by the connection: the reference never sees them.
            if !halfClosed { reference.feed(buffer) }
            machine.received(buffer, filledBuffer: count == readBuffer)
        }
        return true
    }

    func write() {
        require(!halfClosed, "a write after the half-close")
        require(hasOutput, "a write with nothing queued")
        require(!writeBlocked, "a write while blocked, with no writability since")
        guard writeRoom else {
            writeBlocked = true
            machine.writeBlocked()
            return
        }
        hasOutput = false
        let complete = machine.written()
        var expected = false
        if case .responding(let staysOpen, true, _) = exchange {
            expected = true
            if complete { responseCompleted(staysOpen: staysOpen) }
        }
        require(complete == expected, "written() said \(complete) where the response complete is \(expected)")
    }

    func startExchange() {
        require(!closed && !halfClosed, "an exchange started after the close was decided")
        require(!answered, "an exchange started after an answer without a request")
        guard case .none = exchange else { fatalError("an exchange started during \(exchange)") }
        require(!hasOutput, "an exchange started with output queued")
        exchangesStarted += 1
        if drained {
            startedAfterDrain += 1
            require(startedAfterDrain <= 1, "\(startedAfterDrain) exchanges started after the drain")
        }
    }

    func checkAnswer(_ status: Int) {
        if status == 503 {
            require(refusedStart && exchangesStarted == 1, "503 answered to a start that was not refused")
        } else if status == 408 {
            require(headerDeadlineExpired, "408 before the header deadline expired")
        } else {
            require(reference.failure?.status.code == status, "answer \(status) where the reference did not fail")
            require(dispatched == reference.requests.count, "the failure answered before the requests ahead of it")
        }
    }

    func deliverResponse(to request: HTTPRequest?, closing: Bool, streams: Bool) {
        let staysOpen = machine.responseReady(closing: closing, streams: streams && request != nil)
        guard let staysOpen else { fatalError("the response to the exchange under way was refused") }
        let expected = (request?.wantsKeepAlive ?? false) && !closing && !drained
        require(staysOpen == expected, "stays open: \(staysOpen), expected \(expected)")
        hasOutput = true
        let streaming = streams && request != nil
        exchange = .responding(staysOpen: staysOpen, done: !streaming, pieceAsked: streaming)
    }

    func responseCompleted(staysOpen: Bool) {
        exchange = .none
        if !staysOpen { mustEnd = true }
    }

    func mustClose(_ why: String) {
        if case .close = machine.nextAction() {
            closed = true
            exchange = .none
            hasOutput = false
            timerAt = nil
            mustEnd = false
        } else {
            fatalError("\(why) did not close the connection at once")
        }
    }

    /// The machine waits: what must hold between events.
    func checkWaiting() {
        require(machine.pendingCount <= maxPipelined, "\(machine.pendingCount) requests held")
        guard !closed else { return }
        let deadline = machine.deadline
        if deadline != .none {
            require(
                timerAt.map { $0 <= deadline.expiry } ?? false,
                "waiting for \(deadline) with the timer at \(timerAt as Any)")
        }
    }

    // MARK: The end of the input

    /// The client stops sending; the responder answers everything and the client reads everything, with no
    /// time passing, until nothing changes; then time passes until the connection closes.
    func finish() {
        readFails = false
        writeRoom = true
        settle()
        if !closed, machine.lifecycle == .open || machine.lifecycle == .draining {
            require(inbox.isEmpty, "\(inbox.count) bytes never read (an edge was lost)")
            require(!peerShut, "the peer's close never read")
            require(
                reference.failure == nil && dispatched == reference.requests.count,
                "\(reference.requests.count - dispatched) requests never dispatched")
            if let asked = reference.continueAskedBy, asked == reference.requests.count {
                require(continuesSent.contains(asked), "the 100 Continue owed to request \(asked) never sent")
            }
        }
        for _ in 0..<64 where !closed {
            guard let at = timerAt else { fatalError("waiting for nothing: no timer, nothing owed") }
            clock.nanoseconds = max(clock.nanoseconds, at)
            fireTimerIfDue()
            settle()
        }
        require(closed, "the connection never closes")
    }

    /// Answers, delivers the stream's end and lets writes through until nothing is owed.
    func settle() {
        for _ in 0..<256 where !closed {
            switch exchange {
            case .awaiting:
                respond(closing: false, streams: false)
            case .responding(_, false, true):
                deliverPiece(2)
            default:
                guard writeBlocked else { return }
                clientReads()
            }
        }
    }
}

/// Runs the input's events against a fresh connection, then quiets it down and lets it close.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConnectionStateMachine(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard size >= 4, let data else { return 0 }
    var input = InputBytes(bytes: Array(UnsafeBufferPointer(start: data, count: size)))
    let world = World(configuration: &input)
    world.start()
    while !input.isEmpty {
        let event = input.next()
        switch event % 16 {
        case 0, 1, 2: world.composed += fragments[Int(input.next()) % fragments.count]
        case 3:
            let count = Int(input.next() % 24)
            for _ in 0..<count { world.composed.append(input.next()) }
        case 4, 5: world.send(1 + Int(input.next() % 32))
        case 6: world.send(nil)
        case 7: world.shutPeer()
        case 8:
            let how = input.next()
            world.respond(closing: how & 1 != 0, streams: how & 2 != 0)
        case 9: world.deliverPiece(input.next())
        case 10:
            // The client stops reading, or reads again.
            if input.next() & 1 == 0 { world.writeRoom = false } else { world.clientReads() }
        case 11: world.advance(UInt64(input.next()) * 50_000_000)
        case 12:
            // An edge with nothing new behind it (EPOLLOUT with EPOLLIN set, a spurious wake-up).
            if input.next() & 1 == 0 { world.edge(peerClosing: false) } else { world.writable() }
        case 13:
            let how = input.next()
            world.answersInline = how & 1 != 0
            world.inlineClosing = how & 2 != 0
            world.inlineStreams = how & 4 != 0
        case 14:
            switch input.next() % 8 {
            case 0: world.drain()
            case 1: world.abort()
            case 2: world.readFails = true
            case 3: world.interim()
            default: world.edge(peerClosing: false)
            }
        default:
            world.fireTimerIfDue()
        }
    }
    world.finish()
    return 0
}
