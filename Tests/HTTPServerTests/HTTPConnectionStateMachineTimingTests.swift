import HTTPCore
import Testing

@testable import HTTPServer

/// The connection's rules that run on the clock or end the connection, without sockets: the idle, header,
/// write and linger timeouts (on a manual clock), the drain on shutdown, failures and streamed bodies.
@Suite struct HTTPConnectionStateMachineTimingTests {
    // MARK: Idle, header and write timeouts

    @Test func anIdleConnectionClosesSilentlyAtItsDeadline() {
        let connection = ConnectionUnderTest(idle: 5)
        let start = connection.clock.nanoseconds
        connection.machine.start()
        _ = connection.steps()
        connection.machine.readWouldBlock()
        #expect(connection.steps() == [.armTimer(start + 5 * ConnectionUnderTest.second)])
        connection.clock.advance(seconds: 4.9)
        connection.machine.timerFired()
        #expect(connection.steps() == [.armTimer(start + 5 * ConnectionUnderTest.second)])
        connection.clock.advance(seconds: 0.1)
        connection.machine.timerFired()
        #expect(connection.steps() == [.close])
    }

    /// A stray empty line after an answered request (RFC 9112 §2.2) leaves the connection idle: the idle
    /// deadline stays, and the header timeout (whose expiry sends 408) is not started.
    @Test func aStrayEmptyLineBetweenRequestsKeepsTheIdleDeadline() {
        let connection = ConnectionUnderTest(idle: 60, header: 10)
        connection.startServing("/a")
        connection.answerInFull()
        let idle = connection.machine.deadline
        #expect(idle == .idle(at: connection.clock.nanoseconds + 60 * ConnectionUnderTest.second))
        connection.receive("\n")
        _ = connection.steps()
        #expect(connection.machine.deadline == idle)
    }

    /// Moving a deadline later only records it; the timer re-arms itself when it fires early.
    @Test func aLaterDeadlineReArmsTheTimerOnlyWhenItFires() {
        let connection = ConnectionUnderTest(idle: 5)
        connection.startIdle()
        let firstDeadline = connection.machine.deadline.expiry
        connection.clock.advance(seconds: 1)
        connection.machine.readable(peerClosing: false)
        _ = connection.steps()
        connection.receive(get("/a"))
        _ = connection.steps()
        connection.answerInFull()
        let idleAgain = connection.clock.nanoseconds + 5 * ConnectionUnderTest.second
        #expect(connection.machine.deadline == .idle(at: idleAgain))
        #expect(connection.steps() == [])
        connection.clock.nanoseconds = firstDeadline
        connection.machine.timerFired()
        #expect(connection.steps() == [.armTimer(idleAgain)])
    }

    /// From the first byte of a request the header timeout runs and later bytes do not move it (slowloris).
    @Test func theHeaderTimeoutIsNotMovedByLaterBytes() {
        let connection = ConnectionUnderTest(header: 1)
        connection.startReadable()
        let first = connection.clock.nanoseconds
        connection.receive("GET / HTTP/1.1\r\n")
        #expect(connection.machine.deadline == .header(at: first + ConnectionUnderTest.second))
        #expect(connection.steps() == [.armTimer(first + ConnectionUnderTest.second)])
        for _ in 0..<9 {
            connection.clock.advance(seconds: 0.1)
            connection.machine.readable(peerClosing: false)
            _ = connection.steps()
            connection.receive("X")
        }
        #expect(connection.machine.deadline == .header(at: first + ConnectionUnderTest.second))
        connection.clock.advance(seconds: 0.1)
        connection.machine.timerFired()
        #expect(connection.steps() == [.answer(408)])
        #expect(connection.machine.intake == .failed)
        connection.answerInFull()
        #expect(connection.steps() == [.halfClose, connection.lingerTimer])
    }

    /// Once the head is complete, each piece of the body restarts the clock: the limit is on pauses.
    @Test func aBodyMustProgressOncePerHeaderTimeout() {
        let connection = ConnectionUnderTest(header: 1)
        connection.startReadable()
        connection.receive("POST /up HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\n")
        for byte in ["a", "b"] {
            connection.clock.advance(seconds: 0.9)
            connection.receive(byte)
            #expect(
                connection.machine.deadline == .header(at: connection.clock.nanoseconds + ConnectionUnderTest.second))
        }
        connection.receive("c")
        #expect(connection.steps() == [.dispatch("/up")])
        #expect(connection.machine.deadline == .none)
    }

    @Test func aStalledWriteClosesAtTheWriteTimeoutAndEachWaitRestartsIt() {
        let connection = ConnectionUnderTest(write: 3)
        connection.startServing("/big")
        _ = connection.responseReady(closing: false, streams: false)
        #expect(connection.steps() == [.write])
        connection.machine.writeBlocked()
        #expect(connection.machine.output == .blocked)
        #expect(connection.steps() == [.armTimer(connection.clock.nanoseconds + 3 * ConnectionUnderTest.second)])
        connection.clock.advance(seconds: 2)
        connection.machine.writable()
        #expect(connection.steps() == [.write])
        connection.machine.writeBlocked()
        #expect(
            connection.machine.deadline == .write(at: connection.clock.nanoseconds + 3 * ConnectionUnderTest.second))
        _ = connection.steps()
        connection.clock.advance(seconds: 3)
        connection.machine.timerFired()
        #expect(connection.steps() == [.close])
    }

    @Test func aWriteThatCompletesClearsTheWriteDeadline() {
        let connection = ConnectionUnderTest()
        connection.startServing("/a")
        _ = connection.responseReady(closing: false, streams: false)
        _ = connection.steps()
        connection.machine.writeBlocked()
        connection.machine.writable()
        #expect(connection.steps() == [.write])
        #expect(connection.written())
        #expect(
            connection.machine.deadline == .idle(at: connection.clock.nanoseconds + 60 * ConnectionUnderTest.second))
    }

    /// A `100 Continue` that had to wait for the socket replaced the body's deadline with the write deadline;
    /// once it is written, the body is awaited under the header timeout again, or a client that never sends
    /// it would hold the connection with no timer running (found by the ConnectionStateMachine fuzz target).
    @Test func aBlockedContinueThatIsWrittenLeavesTheBodyUnderTheHeaderTimeout() {
        let connection = ConnectionUnderTest(header: 4, write: 4)
        connection.startReadable()
        connection.receive("POST /up HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
        #expect(connection.steps() == [.writeContinue, .write])
        connection.machine.writeBlocked()
        #expect(connection.steps() == [.armTimer(connection.clock.nanoseconds + 4 * ConnectionUnderTest.second)])
        connection.clock.advance(seconds: 1)
        connection.machine.writable()
        #expect(connection.steps() == [.write])
        #expect(!connection.written())
        #expect(
            connection.machine.deadline == .header(at: connection.clock.nanoseconds + 4 * ConnectionUnderTest.second))
        _ = connection.steps()
        connection.clock.advance(seconds: 4)
        connection.machine.timerFired()
        #expect(connection.steps() == [.answer(408)])
    }

    /// Bytes that arrive while a `100 Continue` waits for the socket do not replace the write deadline with
    /// the header deadline: a client that does not read is cut at the write timeout, and the requests it
    /// completed meanwhile are never answered 408 (found by the ConnectionStateMachine fuzz target).
    @Test func bytesArrivingBehindABlockedContinueKeepTheWriteDeadline() {
        let connection = ConnectionUnderTest(header: 1, write: 3)
        connection.startReadable()
        let blockedAt = connection.clock.nanoseconds
        connection.receive("POST /up HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
        #expect(connection.steps() == [.writeContinue, .write])
        connection.machine.writeBlocked()
        #expect(connection.steps() == [.armTimer(blockedAt + 3 * ConnectionUnderTest.second)])
        // The body in two reads: after the first, the request is still being received.
        connection.receive("bo")
        connection.receive("dy" + get("/b"))
        #expect(connection.steps() == [])
        #expect(connection.machine.deadline == .write(at: blockedAt + 3 * ConnectionUnderTest.second))
        connection.clock.advance(seconds: 3)
        connection.machine.timerFired()
        #expect(connection.steps() == [.close])
    }

    // MARK: Drain on shutdown

    @Test func drainingAnIdleConnectionReadsWhatIsThereThenCloses() {
        let connection = ConnectionUnderTest()
        connection.startIdle()
        connection.machine.drain()
        #expect(connection.steps() == [.read])
        connection.machine.readWouldBlock()
        #expect(connection.steps() == [.close])
    }

    /// A request the client sent before the shutdown reached it is served, and its answer says close.
    @Test func drainingServesARequestAlreadyInTheSocket() {
        let connection = ConnectionUnderTest()
        connection.startIdle()
        connection.machine.drain()
        #expect(connection.steps() == [.read])
        connection.receive(get("/late"))
        #expect(connection.steps() == [.dispatch("/late")])
        #expect(connection.answerInFull() == false)
        #expect(connection.steps() == [.halfClose, connection.lingerTimer])
    }

    @Test func drainingLetsTheResponseUnderWayFinishAndSayClose() {
        let connection = ConnectionUnderTest()
        connection.startServing("/slow")
        connection.machine.drain()
        #expect(connection.steps() == [])
        #expect(connection.answerInFull() == false)
        #expect(connection.steps() == [.halfClose, connection.lingerTimer])
    }

    /// A request whose head has begun may still finish while draining; one not begun is not waited for.
    @Test func drainingWaitsForARequestThatHasBegun() {
        let connection = ConnectionUnderTest()
        connection.startReadable()
        connection.receive("GET /half HTTP/1.1\r\n")
        _ = connection.steps()
        connection.machine.drain()
        #expect(connection.steps() == [])
        connection.machine.readable(peerClosing: false)
        #expect(connection.steps() == [.read])
        connection.receive("Host: t\r\n\r\n")
        #expect(connection.steps() == [.dispatch("/half")])
    }

    // MARK: Failures

    @Test func aParseFailureIsAnsweredAndNothingAfterItRuns() {
        let connection = ConnectionUnderTest()
        connection.startReadable()
        connection.receive(get("/1") + "GET /2 HTTP/1.1\r\nBad Header\r\n\r\n" + get("/3"))
        #expect(connection.steps() == [.dispatch("/1")])
        #expect(connection.machine.intake == .failed)
        #expect(!connection.machine.mayRead)
        connection.answerInFull()
        #expect(connection.steps() == [.answer(400)])
        #expect(connection.answerInFull() == false)
        #expect(connection.steps() == [.halfClose, connection.lingerTimer])
    }

    @Test func aConnectionOverCapacityAnswersWithoutReadingAndCloses() {
        let connection = ConnectionUnderTest()
        connection.machine.start(rejecting: HTTPResponse(status: .serviceUnavailable))
        #expect(connection.steps() == [.answer(503)])
        connection.machine.readable(peerClosing: false)
        #expect(connection.steps() == [])
        #expect(connection.answerInFull() == false)
        #expect(connection.steps() == [.halfClose, .read])
    }

    @Test func anAbortClosesAtOnceEvenMidResponse() {
        let connection = ConnectionUnderTest()
        connection.startServing("/a")
        #expect(connection.responseReady(closing: false, streams: true) == true)
        #expect(connection.machine.exchange == .responding(keepAlive: true, body: .awaitingPiece))
        connection.machine.abort()
        #expect(connection.steps() == [.close])
        #expect(connection.machine.lifecycle == .closed)
        // A piece that was on its way when the connection closed changes nothing.
        connection.machine.pieceQueued(last: true)
        #expect(connection.steps() == [])
    }

    // MARK: Streamed bodies

    /// A stream is pulled one piece at a time, only once the previous piece is written: a slow reader
    /// bounds what the server holds.
    @Test func aStreamIsPulledOnlyAfterEachWrite() {
        let connection = ConnectionUnderTest()
        connection.startServing("/stream")
        #expect(connection.responseReady(closing: false, streams: true) == true)
        // The head goes; the first piece was asked for with it.
        #expect(connection.steps() == [.write])
        #expect(!connection.written())
        #expect(connection.steps() == [])
        connection.machine.pieceQueued(last: false)
        #expect(connection.steps() == [.write])
        connection.machine.writeBlocked()
        #expect(connection.steps() == [.armTimer(connection.clock.nanoseconds + 30 * ConnectionUnderTest.second)])
        connection.machine.writable()
        #expect(connection.steps() == [.write])
        #expect(!connection.written())
        #expect(connection.steps() == [.pullPiece])
        connection.machine.pieceWasEmpty()
        #expect(connection.steps() == [.pullPiece])
        connection.machine.pieceQueued(last: true)
        #expect(connection.steps() == [.write])
        #expect(connection.written())
        #expect(connection.machine.exchange == .none)
    }

    @Test func aStreamThatEndsWithNothingToWriteFinishesTheResponseAtOnce() {
        let connection = ConnectionUnderTest()
        connection.startReadable()
        connection.receive(get("/empty-stream") + get("/next"))
        _ = connection.steps()
        _ = connection.responseReady(closing: false, streams: true)
        #expect(connection.steps() == [.write])
        #expect(!connection.written())
        #expect(connection.streamEnded())
        #expect(connection.steps() == [.dispatch("/next")])
    }

    /// The stream ends while its head is still going out: the response ends when the head is written.
    @Test func aStreamThatEndsBeforeItsHeadIsWrittenFinishesWithTheWrite() {
        let connection = ConnectionUnderTest()
        connection.startServing("/empty-stream")
        _ = connection.responseReady(closing: false, streams: true)
        #expect(!connection.streamEnded())
        #expect(connection.steps() == [.write])
        #expect(connection.written())
    }
}
