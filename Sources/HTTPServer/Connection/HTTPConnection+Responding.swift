import Dispatch
import HTTPCore
import Synchronization

/// What the access log needs about the request being answered (at most one at a time: responses go out
/// in order). Whether the exchange is awaiting its answer or writing it is the state machine's.
struct InFlight {
    let number: Int
    let method: HTTPMethod
    let target: String
    let version: HTTPVersion
    let isHead: Bool
    let startTime: DispatchTime
    var status = 0
    var bytesSent = 0
    var cacheStatus: String?
}

/// A streaming body being pulled, one piece per flushed write.
struct BodyStream {
    let source: any HTTPBodySource
    /// Bytes still owed when the length was announced.
    var remaining: Int?
    let chunked: Bool
    var sentData = false
}

extension HTTPConnection {
    /// Frames and queues the responder's answer to request `requestNumber`; the caller drives the writes.
    func handleResponse(_ response: HTTPResponse, requestNumber: Int) {
        // Taken out and put back, not copied: a copy of the record retains and releases its strings.
        guard inFlight?.number == requestNumber, var flight = inFlight.take() else {
            // The connection closed while the handler worked: nobody will pull the stream.
            if case .stream(let source, _) = response.body { source.cancel() }
            return
        }
        var response = response
        if response.isProblem, case .bytes(let bytes) = response.body {
            // A problem gets the request's identifier as `instance` (RFC 9457 §3.1.5), here where it is known.
            response.body = .bytes(ProblemDetails.addingInstance(requestID.uri, to: bytes))
        }
        let wire = response.wireFraming(respondingToHEAD: flight.isHead, version: flight.version)
        var source: (any HTTPBodySource)?
        if case .stream(let stream, _) = response.body {
            if wire.sendsContent { source = stream } else { stream.cancel() }
        }
        let closing = wire.closesConnection || drainSignal.isDraining || response.asksToCloseConnection
        guard let keepAlive = machine.responseReady(closing: closing, streams: source != nil) else {
            inFlight = flight
            source?.cancel()
            return
        }
        var content: [UInt8] = []
        var file: (any HTTPFileRegion)?
        if wire.sendsContent {
            switch response.body {
            case .bytes(let bytes): content = bytes
            case .file(let region) where region.count > 0: file = region
            case .empty, .file, .stream: break
            }
        }
        let connectionField: StaticString? =
            keepAlive ? (flight.version == .http1_0 ? "keep-alive" : nil) : "close"
        flight.status = response.status.code
        if accessLog != nil { flight.cacheStatus = response.headers["X-Cache"] }
        flight.bytesSent = content.count + (file?.count ?? 0)
        inFlight = flight
        prepareOutput()
        response.serializeHead(into: &outHead, framing: wire.framing, connection: connectionField, requestID: requestID)
        outBody = content
        outFile = file
        if let source {
            var announced: Int?
            if case .contentLength(let length) = wire.framing { announced = length }
            stream = BodyStream(source: source, remaining: announced, chunked: wire.framing == .chunked)
            pullFirstPiece(requestNumber: flight.number)
        }
    }

    /// Asks a stream for its first piece before the head is written. A source that has bytes at hand (a
    /// miss whose first bytes came with the origin's head) answers inline, and head and piece go out in
    /// one write; otherwise the head goes now and the piece follows when the source delivers it.
    private func pullFirstPiece(requestNumber number: Int) {
        switch pullPiece(takingInline: true) {
        case .bytes(let bytes)? where !bytes.isEmpty:
            handlePiece(.bytes(bytes), requestNumber: number)
        case let piece?:
            queue.async { [self] in
                handlePiece(piece, requestNumber: number)
                drive()
            }
        case nil:
            break
        }
    }

    /// Writes what is pending: head and body in one `writev`-style call per attempt, then a file region
    /// with `sendfile`; tells the machine when the socket is full or everything went.
    func writeOutput() {
        while !outputIsEmpty {
            let result: IOResult
            do {
                if headSent < outHead.count || bodySent < outBody.count {
                    let more = outFile != nil
                    result = try outHead.withUnsafeBytes { head in
                        try outBody.withUnsafeBytes { body in
                            try Socket.write(
                                fd, UnsafeRawBufferPointer(rebasing: head[headSent...]),
                                UnsafeRawBufferPointer(rebasing: body[bodySent...]), more: more)
                        }
                    }
                } else if let file = outFile {
                    result = try Socket.sendFile(
                        fd, from: file.descriptor, offset: file.offset + fileSent, count: file.count - fileSent)
                    if result == .processed(0) {
                        // The file ended early: the announced length can no longer be met.
                        machine.abort()
                        return
                    }
                } else {
                    break
                }
            } catch {
                machine.abort()
                return
            }
            switch result {
            case .wouldBlock:
                machine.writeBlocked()
                return
            case .processed(let count):
                if headSent == outHead.count && bodySent == outBody.count {
                    fileSent += count
                    continue
                }
                let fromHead = min(count, outHead.count - headSent)
                headSent += fromHead
                bodySent += count - fromHead
            }
        }
        if machine.written() { responseFinished() }
    }

    var outputIsEmpty: Bool {
        headSent == outHead.count && bodySent == outBody.count && fileSent == (outFile?.count ?? 0)
    }

    /// Empties the output buffers for the next response, keeping their capacity. A `100 Continue` that
    /// is still going out stays in front.
    func prepareOutput() {
        if headSent > 0 {
            outHead.removeFirst(headSent)
            headSent = 0
        }
        outBody = []
        bodySent = 0
        outFile = nil
        fileSent = 0
    }

    /// Asks the body source for the next piece; called once the previous piece is written, or for the
    /// first piece before the head.
    /// - Parameter takingInline: return a piece the source gives before `next` returns (the first piece,
    ///   asked for before the head is written) instead of handing it over through the queue.
    /// - Returns: that piece, when taken.
    @discardableResult
    func pullPiece(takingInline: Bool = false) -> HTTPBodyChunk? {
        guard let current = stream, let number = inFlight?.number else { return nil }
        let handoff = takingInline ? FirstPieceHandoff() : nil
        let maxBytes = min(current.remaining ?? Self.streamPieceBytes, Self.streamPieceBytes)
        // Otherwise always hop: a source that answers inline must not recurse through the write path.
        current.source.next(maxBytes: max(maxBytes, 1)) { [self] piece in
            if handoff?.offer(piece) == true { return }
            queue.async {
                self.handlePiece(piece, requestNumber: number)
                self.drive()
            }
        }
        return handoff?.close()
    }

    /// Queues a piece of the stream in the output (with its chunk header when chunked), or ends the stream.
    private func handlePiece(_ piece: HTTPBodyChunk, requestNumber: Int) {
        guard inFlight?.number == requestNumber, var current = stream else { return }
        switch piece {
        case .bytes(let bytes):
            if bytes.isEmpty {
                machine.pieceWasEmpty()
                return
            }
            if let remaining = current.remaining {
                // More than announced would corrupt the framing of the next response.
                guard bytes.count <= remaining else { return machine.abort() }
                current.remaining = remaining - bytes.count
            }
            prepareOutput()
            if current.chunked {
                HTTPResponse.serializeChunkHeader(size: bytes.count, afterData: current.sentData, into: &outHead)
            }
            current.sentData = true
            outBody = bytes
            inFlight?.bytesSent += bytes.count
            let last = current.remaining == 0
            if last {
                current.source.cancel()
                stream = nil
            } else {
                stream = current
            }
            machine.pieceQueued(last: last)
        case .end:
            stream = nil
            if let remaining = current.remaining, remaining != 0 { return machine.abort() }
            if current.chunked {
                prepareOutput()
                HTTPResponse.serializeChunkHeader(size: 0, afterData: current.sentData, into: &outHead)
                machine.pieceQueued(last: true)
            } else if machine.streamEnded() {
                responseFinished()
            }
        case .failure:
            stream = nil
            machine.abort()
        }
    }

    /// The last byte of a response is written: log it.
    private func responseFinished() {
        guard let flight = inFlight.take() else { return }
        logAccess(flight, aborted: false)
    }

    func logAccess(_ flight: InFlight, aborted: Bool) {
        guard let accessLog, flight.status != 0 else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        let start = flight.startTime.uptimeNanoseconds
        accessLog(
            HTTPAccessRecord(
                method: flight.method, target: flight.target, status: flight.status,
                bytesSent: flight.isHead ? 0 : flight.bytesSent, durationNanoseconds: now >= start ? now - start : 0,
                cacheStatus: flight.cacheStatus, remoteAddress: remoteAddress, aborted: aborted,
                requestID: requestID))
    }
}

/// The first piece of a stream, taken from the source's callback when it comes before `next` returns.
private final class FirstPieceHandoff: Sendable {
    private enum State {
        case waiting
        case held(HTTPBodyChunk)
        case closed
    }

    private let state = Mutex(State.waiting)

    /// Keeps `piece` for the writer if it is still waiting; `false` once it stopped waiting.
    func offer(_ piece: HTTPBodyChunk) -> Bool {
        state.withLock { state in
            guard case .waiting = state else { return false }
            state = .held(piece)
            return true
        }
    }

    /// Stops waiting; the piece if one came meanwhile.
    func close() -> HTTPBodyChunk? {
        state.withLock { state in
            defer { state = .closed }
            if case .held(let piece) = state { return piece }
            return nil
        }
    }
}
