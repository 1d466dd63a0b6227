import HTTPCore
import Testing

@testable import HTTPServer

/// The input side of the connection's rules, without sockets: edge-triggered read readiness, the peer's
/// close, the lingering half-close, pipelining and `100 Continue`.
@Suite struct HTTPConnectionStateMachineTests {
    // MARK: Read readiness (edge-triggered)

    @Test func aNewConnectionReadsAtOnceAndArmsTheIdleTimer() {
        let connection = ConnectionUnderTest()
        let start = connection.clock.nanoseconds
        connection.machine.start()
        #expect(connection.steps() == [.read])
        connection.machine.readWouldBlock()
        #expect(connection.steps() == [.armTimer(start + 60 * ConnectionUnderTest.second)])
        #expect(connection.machine.deadline == .idle(at: start + 60 * ConnectionUnderTest.second))
    }

    @Test func aShortReadWaitsForTheNextEdge() {
        let connection = ConnectionUnderTest()
        connection.startReadable()
        connection.receive("GET /a HTTP/1.1\r\n")
        // The socket gave less than the buffer holds: it is empty, and new bytes bring a new edge.
        #expect(connection.steps() == [.armTimer(connection.clock.nanoseconds + 10 * ConnectionUnderTest.second)])
        connection.machine.readable(peerClosing: false)
        #expect(connection.steps() == [.read])
    }

    @Test func aFullReadReadsAgainWithoutAnEdge() {
        let connection = ConnectionUnderTest()
        connection.startReadable()
        connection.receive("GET /a HTTP/1.1\r\n", filledBuffer: true)
        #expect(connection.steps() == [.read])
    }

    /// An edge that arrives while reading is paused (the pipeline is full) is not reported again: the
    /// paused reader remembers it and reads when the pipeline frees up.
    @Test func anEdgeSeenWhilePausedIsReadWhenReadingResumes() {
        let connection = ConnectionUnderTest(maxPipelined: 1)
        connection.startReadable()
        connection.receive(get("/a") + get("/b"))
        #expect(connection.steps() == [.dispatch("/a")])
        #expect(!connection.machine.mayRead)
        connection.machine.readable(peerClosing: false)
        #expect(connection.steps() == [])
        connection.answerInFull()
        #expect(connection.steps() == [.dispatch("/b"), .read])
    }

    /// Without an edge while paused, resuming does not read: the socket was empty.
    @Test func resumingWithoutAnEdgeDoesNotRead() {
        let connection = ConnectionUnderTest(maxPipelined: 1)
        connection.startReadable()
        connection.receive(get("/a") + get("/b"))
        #expect(connection.steps() == [.dispatch("/a")])
        connection.answerInFull()
        #expect(connection.steps() == [.dispatch("/b")])
    }

    // MARK: A pending end

    /// After `EPOLLRDHUP` a short read no longer means the socket is empty: the end of stream behind the
    /// bytes brings no edge, so reading goes on until `read` returns 0.
    @Test func aReportedCloseKeepsReadingPastShortReads() {
        let connection = ConnectionUnderTest()
        connection.startIdle()
        connection.machine.readable(peerClosing: true)
        #expect(connection.steps() == [.read])
        connection.receive(get("/a"))
        #expect(connection.steps() == [.dispatch("/a"), .read])
        connection.machine.endOfStream()
        #expect(connection.steps() == [])
        connection.answerInFull()
        // The peer sends nothing more: no half-close or linger, the connection closes.
        #expect(connection.steps() == [.close])
    }

    /// The peer's close behind a full pipeline is read once the pipeline frees up, after every request
    /// already sent has been answered.
    @Test func aCloseBehindAFullPipelineIsNoticedAfterTheAnswers() {
        let connection = ConnectionUnderTest(maxPipelined: 1)
        connection.startIdle()
        connection.machine.readable(peerClosing: true)
        _ = connection.steps()
        connection.receive(get("/a") + get("/b"))
        #expect(connection.steps() == [.dispatch("/a")])
        connection.answerInFull()
        #expect(connection.steps() == [.dispatch("/b"), .read])
        connection.machine.endOfStream()
        #expect(connection.steps() == [])
        connection.answerInFull()
        #expect(connection.steps() == [.close])
    }

    // MARK: Half-close

    /// A response that ends the connection shuts down the sending side and reads what the client still
    /// sends, discarding it, so that the close does not become a reset that destroys the response.
    @Test func aClosingResponseHalfClosesAndDiscardsUntilThePeerCloses() {
        let connection = ConnectionUnderTest()
        connection.startReadable()
        let start = connection.clock.nanoseconds
        connection.receive(get("/bye", extra: "Connection: close\r\n"))
        #expect(connection.steps() == [.dispatch("/bye")])
        #expect(connection.answerInFull() == false)
        #expect(connection.steps() == [.halfClose, connection.lingerTimer])
        #expect(connection.machine.lifecycle == .lingering)
        #expect(connection.machine.deadline == .linger(at: start + 2 * ConnectionUnderTest.second))
        connection.machine.readable(peerClosing: false)
        #expect(connection.steps() == [.read])
        connection.receive(get("/ignored"))
        #expect(connection.steps() == [])
        connection.machine.readable(peerClosing: true)
        #expect(connection.steps() == [.read])
        connection.machine.endOfStream()
        #expect(connection.steps() == [.close])
    }

    @Test func aLingeringConnectionClosesAtItsDeadline() {
        let connection = ConnectionUnderTest()
        connection.startReadable()
        connection.receive(get("/bye", extra: "Connection: close\r\n"))
        _ = connection.steps()
        connection.answerInFull()
        #expect(connection.steps() == [.halfClose, connection.lingerTimer])
        connection.clock.advance(seconds: 2)
        connection.machine.timerFired()
        #expect(connection.steps() == [.close])
    }

    @Test func aResponseThatAsksToCloseEndsAKeepAliveConnection() {
        let connection = ConnectionUnderTest()
        connection.startServing("/a")
        // The request would keep the connection; the response's `Connection: close` ends it.
        #expect(connection.answerInFull(closing: true) == false)
        #expect(connection.steps() == [.halfClose, connection.lingerTimer])
    }

    @Test func http10ClosesUnlessAskedToKeepAlive() {
        let connection = ConnectionUnderTest()
        connection.startReadable()
        connection.receive("GET /old HTTP/1.0\r\n\r\n")
        _ = connection.steps()
        #expect(connection.answerInFull() == false)
        #expect(connection.steps() == [.halfClose, connection.lingerTimer])

        let kept = ConnectionUnderTest()
        kept.startReadable()
        kept.receive("GET /kept HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        #expect(kept.steps() == [.dispatch("/kept")])
        #expect(kept.answerInFull() == true)
        #expect(kept.steps() == [])
    }

    // MARK: Pipelining

    @Test func pipelinedRequestsAreDispatchedOneAtATimeInOrder() {
        let connection = ConnectionUnderTest()
        connection.startReadable()
        connection.receive(get("/1") + get("/2") + get("/3"))
        #expect(connection.steps() == [.dispatch("/1")])
        #expect(connection.machine.pendingCount == 2)
        connection.answerInFull()
        #expect(connection.steps() == [.dispatch("/2")])
        connection.answerInFull()
        #expect(connection.steps() == [.dispatch("/3")])
        connection.answerInFull()
        #expect(connection.steps() == [])
        #expect(connection.machine.exchange == .none)
    }

    @Test func theParserStopsAtThePipelineLimitAndReadingPauses() {
        let connection = ConnectionUnderTest(maxPipelined: 2)
        connection.startReadable()
        connection.receive((1...5).map { get("/\($0)") }.joined(), filledBuffer: true)
        // One dispatched, two parsed ahead, the rest left in the parser; the full read is not followed up.
        #expect(connection.steps() == [.dispatch("/1")])
        #expect(connection.machine.pendingCount == 2)
        #expect(!connection.machine.mayRead)
        for path in ["/2", "/3", "/4", "/5"] {
            connection.answerInFull()
            #expect(connection.steps().first == .dispatch(path))
        }
    }

    /// A response arriving while the connection waits for another does not start a second exchange.
    @Test func aSecondAnswerForTheSameExchangeIsDropped() {
        let connection = ConnectionUnderTest()
        connection.startServing("/a")
        connection.answerInFull()
        #expect(connection.responseReady(closing: false, streams: false) == nil)
    }

    // MARK: 100-continue

    @Test func continueIsSentOnceTheHeadOfABodyWaitingForItArrives() {
        let connection = ConnectionUnderTest()
        connection.startReadable()
        connection.receive("POST /up HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
        #expect(connection.steps() == [.writeContinue, .write])
        #expect(!connection.written())
        connection.receive("hello")
        #expect(connection.steps() == [.dispatch("/up")])
    }

    /// A request behind the one in flight is told to go on only once the connection is free: its 100
    /// must not come before the earlier response.
    @Test func continueForAPipelinedRequestWaitsForTheResponseBeforeIt() {
        let connection = ConnectionUnderTest()
        connection.startReadable()
        connection.receive(
            get("/a") + "POST /up HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n")
        #expect(connection.steps() == [.dispatch("/a")])
        #expect(connection.machine.intake == .continueOwed)
        connection.answerInFull()
        #expect(connection.steps() == [.writeContinue, .write])
    }

    // MARK: Interim responses (RFC 9110 §15.2)

    /// While the final response is awaited, interim ones go out as they come, and the exchange still waits.
    @Test func interimResponsesAreWrittenWhileTheFinalOneIsAwaited() {
        let connection = ConnectionUnderTest()
        connection.startServing("/a")
        #expect(connection.interimReady())
        #expect(connection.steps() == [.write])
        #expect(!connection.written(), "an interim response completed the exchange")
        #expect(connection.interimReady())
        #expect(connection.steps() == [.write])
        #expect(!connection.written())
        #expect(connection.answerInFull() == true)
    }

    /// Once the final response is being written a 1xx would land inside it; after it, it belongs to no
    /// request; on a closing connection, nobody reads it.
    @Test func anInterimResponseIsRefusedOutsideTheWaitForTheFinalOne() {
        let connection = ConnectionUnderTest()
        connection.startServing("/a")
        #expect(connection.responseReady(closing: false, streams: true) == true)
        #expect(!connection.interimReady())
        #expect(connection.machine.exchange == .responding(keepAlive: true, body: .awaitingPiece))
        let idle = ConnectionUnderTest()
        idle.startReadable()
        idle.machine.readWouldBlock()
        _ = idle.steps()
        #expect(!idle.interimReady())
        let closing = ConnectionUnderTest()
        closing.startServing("/b")
        closing.machine.abort()
        #expect(!closing.interimReady())
    }

    @Test func aBodySentWithoutWaitingIsNotToldToContinue() {
        let connection = ConnectionUnderTest()
        connection.startReadable()
        connection.receive("POST /up HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\nok")
        #expect(connection.steps() == [.dispatch("/up")])
        #expect(connection.machine.intake == .accepting)
    }
}
