import Dispatch
import Glibc
import HTTPCore

extension HTTPConnection {
    /// Arms the one timer for `purpose`, `seconds` from now. Moving a deadline later only records it;
    /// the timer re-arms itself when it fires early.
    func setDeadline(_ purpose: DeadlinePurpose, after seconds: Double) {
        let at = DispatchTime.now().uptimeNanoseconds &+ UInt64(max(seconds, 0) * 1_000_000_000)
        deadline = at
        deadlinePurpose = purpose
        if at < timerFiresAt {
            timerFiresAt = at
            timer?.schedule(deadline: DispatchTime(uptimeNanoseconds: at), leeway: .milliseconds(5))
        }
    }

    func clearDeadline() {
        deadline = .max
        deadlinePurpose = .none
    }

    func timerFired() {
        timerFiresAt = .max
        guard state != .closed, deadlinePurpose != .none else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        if now < deadline {
            timerFiresAt = deadline
            timer?.schedule(deadline: DispatchTime(uptimeNanoseconds: deadline), leeway: .milliseconds(5))
            return
        }
        let purpose = deadlinePurpose
        clearDeadline()
        switch purpose {
        case .none:
            break
        case .idle, .linger:
            finalClose()
        case .write:
            abort()
        case .header:
            guard state == .open, inFlight == nil else { return }
            // The half-received request is abandoned; nothing after it may execute.
            parserFailed = true
            let problem = ProblemDetails.make(
                status: .requestTimeout, type: HTTPProblemType.requestTimeout,
                detail: "The request was not complete within \(configuration.headerReadTimeout) s.")
            respondWithoutRequest(problem.makeResponse())
        }
    }

    /// Starts or stops waiting for room to write; the loop calls `writeOutput` on the next writability edge.
    func setWriting(_ on: Bool) {
        writeWaiting = on && state != .closed
    }

    /// Shutdown has begun: an idle connection closes now, a busy one after its current response
    /// (which says `Connection: close`).
    func beginDrain() {
        draining = true
        guard state == .open, isIdle else { return }
        // Bytes already in the socket are a request the client has sent: take them in before deciding
        // (a complete request is served, a partial one gets its time; `pump` closes if nothing came).
        handleReadable()
        if state == .open && isIdle { finalClose() }
    }

    private var isIdle: Bool { inFlight == nil && pending.count == pendingHead && parser.isIdle }

    /// Ends the connection after the last response: stop sending, then read and discard until the
    /// peer closes (or a short linger ends), so that unread request bytes do not turn the close into
    /// a reset that could destroy the response before the client reads it.
    func closeGracefully() {
        guard state == .open else { return }
        if peerClosed {
            finalClose()
            return
        }
        state = .lingering
        Socket.shutdownWrite(fd)
        setReading(true)
        setDeadline(.linger, after: min(2, configuration.idleTimeout))
    }

    /// Closes at once; a response being written is cut short and its body source cancelled.
    func abort() {
        if let current = stream {
            stream = nil
            current.source.cancel()
        }
        finalClose()
    }

    /// Leaves the loop's epoll set and closes the descriptor; the timer is cancelled.
    func finalClose() {
        guard state != .closed else { return }
        if let current = stream {
            stream = nil
            current.source.cancel()
        }
        if let flight = inFlight {
            inFlight = nil
            logAccess(flight, aborted: true)
        }
        state = .closed
        writeWaiting = false
        if registered {
            registered = false
            loop.unregister(self)
        }
        close(fd)
        // Dropping the timer drops its handler's reference to this connection.
        timer?.cancel()
        timer = nil
        onClose(self)
    }
}
