import Dispatch
import HTTPCore
import Synchronization

/// The request being answered on a connection (at most one at a time: responses go out in order).
struct InFlight {
    enum Phase: Equatable {
        /// The responder has not sent its answer yet.
        case awaitingResponse
        /// Output is being written; `last` when nothing follows it.
        case writing(last: Bool)
    }

    let number: Int
    let method: HTTPMethod
    let target: String
    let version: HTTPVersion
    let isHead: Bool
    var keepAlive: Bool
    let startTime: DispatchTime
    var phase = Phase.awaitingResponse
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
    var awaitingPiece = false
}

extension HTTPConnection {
    /// Frames and writes the responder's answer to request `requestNumber`.
    func handleResponse(_ response: HTTPResponse, requestNumber: Int) {
        guard state == .open, var flight = inFlight, flight.number == requestNumber,
            flight.phase == .awaitingResponse
        else {
            // The connection closed while the handler worked: nobody will pull the stream.
            if case .stream(let source, _) = response.body { source.cancel() }
            return
        }
        var keepAlive = flight.keepAlive && !draining && !drainSignal.isDraining && !Self.asksToClose(response.headers)
        let noContent = response.status.forbidsContent
        var framing = HTTPResponse.Framing.none
        var content: [UInt8] = []
        var file: (any HTTPFileRegion)?
        var source: (any HTTPBodySource)?
        var length: Int?
        switch response.body {
        case .empty:
            if !noContent { framing = .contentLength(flight.isHead ? Self.declaredLength(response.headers) ?? 0 : 0) }
        case .bytes(let bytes):
            // A problem gets the request's identifier as `instance` (RFC 9457 §3.1.5), here where it is known.
            let bytes = response.isProblem ? ProblemDetails.addingInstance(requestID.uri, to: bytes) : bytes
            if !noContent { framing = .contentLength(bytes.count) }
            if !flight.isHead && !noContent { content = bytes }
        case .file(let region):
            if !noContent { framing = .contentLength(region.count) }
            if !flight.isHead && !noContent && region.count > 0 { file = region }
        case .stream(let stream, let announced):
            length = announced ?? (flight.isHead ? Self.declaredLength(response.headers) : nil)
            if noContent {
                stream.cancel()
            } else if flight.isHead {
                // HEAD gets the framing a GET would have (RFC 9110 §9.3.2) and no content.
                stream.cancel()
                if let length {
                    framing = .contentLength(length)
                } else if flight.version == .http1_1 {
                    framing = .chunked
                }
            } else {
                source = stream
                if let length {
                    framing = .contentLength(length)
                } else if flight.version == .http1_1 {
                    framing = .chunked
                } else {
                    // HTTP/1.0 has no chunked coding: the close delimits the content (RFC 9112 §6.3).
                    framing = .closeDelimited
                    keepAlive = false
                }
            }
        }
        let connectionField: StaticString? =
            keepAlive ? (flight.version == .http1_0 ? "keep-alive" : nil) : "close"
        flight.keepAlive = keepAlive
        flight.status = response.status.code
        if accessLog != nil { flight.cacheStatus = response.headers["X-Cache"] }
        flight.bytesSent = content.count + (file?.count ?? 0)
        prepareOutput()
        response.serializeHead(
            into: &outHead, framing: framing, connection: connectionField, requestID: requestID)
        outBody = content
        outFile = file
        if let source {
            stream = BodyStream(source: source, remaining: length, chunked: framing == .chunked)
            flight.phase = .writing(last: false)
            inFlight = flight
            writeHeadWithFirstPiece(requestNumber: flight.number)
        } else {
            flight.phase = .writing(last: true)
            inFlight = flight
            writeOutput()
        }
    }

    /// Asks a stream for its first piece before the head is written. A source that has bytes at hand (a
    /// miss whose first bytes came with the origin's head) answers inline, and head and piece go out in
    /// one write; otherwise the head goes now and the piece follows when the source delivers it.
    private func writeHeadWithFirstPiece(requestNumber number: Int) {
        switch pullPiece(takingInline: true) {
        case .bytes(let bytes)? where !bytes.isEmpty:
            handlePiece(.bytes(bytes), requestNumber: number)
        case let piece?:
            writeOutput()
            queue.async { [self] in handlePiece(piece, requestNumber: number) }
        case nil:
            writeOutput()
        }
    }

    /// Writes what is pending: head and body in one `writev`-style call per attempt, then a file region
    /// with `sendfile`; waits for writability when the socket is full.
    func writeOutput() {
        guard state != .closed else { return }
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
                        abort()
                        return
                    }
                } else {
                    break
                }
            } catch {
                abort()
                return
            }
            switch result {
            case .wouldBlock:
                setWriting(true)
                // Each wait restarts the stall clock: the limit is on time without progress.
                setDeadline(.write, after: configuration.writeTimeout)
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
        setWriting(false)
        if deadlinePurpose == .write { clearDeadline() }
        outputFlushed()
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

    private func outputFlushed() {
        guard let flight = inFlight else { return }
        switch flight.phase {
        case .writing(last: true): finishResponse()
        case .writing(last: false): pullPiece()
        case .awaitingResponse: break
        }
    }

    /// Asks the body source for the next piece; called once the previous piece is written, or for the
    /// first piece before the head.
    /// - Parameter takingInline: return a piece the source gives before `next` returns (the first piece,
    ///   asked for before the head is written) instead of handing it over through the queue.
    /// - Returns: that piece, when taken.
    @discardableResult
    private func pullPiece(takingInline: Bool = false) -> HTTPBodyChunk? {
        guard var current = stream, !current.awaitingPiece, let number = inFlight?.number else { return nil }
        current.awaitingPiece = true
        stream = current
        let handoff = takingInline ? FirstPieceHandoff() : nil
        let maxBytes = min(current.remaining ?? Self.streamPieceBytes, Self.streamPieceBytes)
        // Otherwise always hop: a source that answers inline must not recurse through the write path.
        current.source.next(maxBytes: max(maxBytes, 1)) { [self] piece in
            if handoff?.offer(piece) == true { return }
            queue.async { self.handlePiece(piece, requestNumber: number) }
        }
        return handoff?.close()
    }

    private func handlePiece(_ piece: HTTPBodyChunk, requestNumber: Int) {
        guard state == .open, inFlight?.number == requestNumber, var current = stream else { return }
        current.awaitingPiece = false
        switch piece {
        case .bytes(let bytes):
            if bytes.isEmpty {
                stream = current
                pullPiece()
                return
            }
            if let remaining = current.remaining {
                // More than announced would corrupt the framing of the next response.
                guard bytes.count <= remaining else { return abort() }
                current.remaining = remaining - bytes.count
            }
            prepareOutput()
            if current.chunked {
                HTTPResponse.serializeChunkHeader(size: bytes.count, afterData: current.sentData, into: &outHead)
            }
            current.sentData = true
            outBody = bytes
            inFlight?.bytesSent += bytes.count
            if current.remaining == 0 {
                current.source.cancel()
                stream = nil
                inFlight?.phase = .writing(last: true)
            } else {
                stream = current
            }
            writeOutput()
        case .end:
            stream = nil
            if let remaining = current.remaining, remaining != 0 { return abort() }
            if current.chunked {
                prepareOutput()
                HTTPResponse.serializeChunkHeader(size: 0, afterData: current.sentData, into: &outHead)
                inFlight?.phase = .writing(last: true)
                writeOutput()
            } else if !outputIsEmpty {
                // The head of an empty stream is still going out: the response ends when it is written.
                inFlight?.phase = .writing(last: true)
                writeOutput()
            } else {
                finishResponse()
            }
        case .failure:
            stream = nil
            abort()
        }
    }

    /// The last byte of a response is written: log it, then serve the next request or close.
    func finishResponse() {
        guard let flight = inFlight else { return }
        inFlight = nil
        logAccess(flight, aborted: false)
        if flight.keepAlive && state == .open {
            pump()
        } else {
            closeGracefully()
        }
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

    /// Whether the handler asked for the connection to close after its response.
    private static func asksToClose(_ headers: HTTPHeaders) -> Bool {
        guard headers.contains("Connection") else { return false }
        return headers.listValues(for: "Connection").contains { $0.equalsIgnoringASCIICase("close") }
    }

    /// The handler's own `Content-Length`, used for HEAD answers that carry no content.
    private static func declaredLength(_ headers: HTTPHeaders) -> Int? {
        headers["Content-Length"].flatMap { Int($0) }.flatMap { $0 >= 0 ? $0 : nil }
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
