import HTTPCore
import Testing

@testable import HTTPServer

/// A clock moved by hand.
final class ManualClock: HTTPConnectionClock {
    var nanoseconds: UInt64 = 1_000_000_000

    func advance(seconds: Double) { nanoseconds += UInt64(seconds * 1_000_000_000) }
}

/// An action of the machine in a form tests compare: requests by path, answers by status.
enum Step: Equatable, CustomStringConvertible {
    case read, dispatch(String), answer(Int), writeContinue, write, pullPiece, armTimer(UInt64), halfClose, close

    var description: String {
        switch self {
        case .read: "read"
        case .dispatch(let path): "dispatch \(path)"
        case .answer(let status): "answer \(status)"
        case .writeContinue: "100-continue"
        case .write: "write"
        case .pullPiece: "pull"
        case .armTimer(let at): "timer \(at)"
        case .halfClose: "half-close"
        case .close: "close"
        }
    }
}

/// The state machine with a manual clock and helpers that feed it events and collect what it asks for.
final class ConnectionUnderTest {
    static let second: UInt64 = 1_000_000_000
    let clock = ManualClock()
    var machine: HTTPConnectionStateMachine<ManualClock>

    init(maxPipelined: Int = 16, idle: Double = 60, header: Double = 10, write: Double = 30) {
        let configuration = HTTPServerConfiguration(
            headerReadTimeout: header, idleTimeout: idle, writeTimeout: write, maxPipelinedRequests: maxPipelined)
        machine = HTTPConnectionStateMachine(
            limits: .init(configuration), parserLimits: configuration.parserLimits, clock: clock)
    }

    /// Every action up to the next wait, or up to a read or a write, whose outcome the test reports (the
    /// machine asks again until it is told).
    func steps() -> [Step] {
        var steps: [Step] = []
        while steps.count < 100 {
            switch machine.nextAction() {
            case .none: return steps
            case .read: return steps + [.read]
            case .write: return steps + [.write]
            case .dispatch(let request): steps.append(.dispatch(request.path))
            case .answer(let response): steps.append(.answer(response.status.code))
            case .writeContinue: steps.append(.writeContinue)
            case .pullPiece: steps.append(.pullPiece)
            case .armTimer(let at): steps.append(.armTimer(at))
            case .halfClose: steps.append(.halfClose)
            case .close: steps.append(.close)
            }
        }
        Issue.record("the machine never waits")
        return steps
    }

    /// Reports a read of `text`; a read that filled the buffer says more may be waiting.
    func receive(_ text: String, filledBuffer: Bool = false) {
        Array(text.utf8).withUnsafeBytes { machine.received($0, filledBuffer: filledBuffer) }
    }

    /// Starts the connection and reads the socket empty: the state of a fresh connection waiting for bytes.
    func startIdle() {
        machine.start()
        #expect(steps() == [.read])
        machine.readWouldBlock()
        #expect(steps() == [.armTimer(clock.nanoseconds + machine.limits.idleTimeout)])
    }

    /// A fresh connection whose socket became readable (the peer still sending): it asks to read.
    func startReadable() {
        startIdle()
        machine.readable(peerClosing: false)
        #expect(steps() == [.read])
    }

    /// A fresh connection that read one GET of `path` (with `extra` fields): it is dispatched, and the
    /// connection waits for its response.
    func startServing(_ path: String, extra: String = "") {
        startReadable()
        receive(get(path, extra: extra))
        #expect(steps() == [.dispatch(path)])
    }

    /// The timer armed for a lingering close that starts now.
    var lingerTimer: Step { .armTimer(clock.nanoseconds + machine.limits.lingerTimeout) }

    /// Answers the request in flight with a complete response written at once; returns whether it stays open.
    @discardableResult
    func answerInFull(closing: Bool = false) -> Bool? {
        let keepAlive = responseReady(closing: closing, streams: false)
        #expect(steps() == [.write])
        #expect(written())
        return keepAlive
    }

    /// `responseReady`, callable inside `#expect` (which cannot call a mutating member).
    func responseReady(closing: Bool, streams: Bool) -> Bool? {
        machine.responseReady(closing: closing, streams: streams)
    }

    /// `written`, callable inside `#expect`.
    func written() -> Bool { machine.written() }

    /// `interimReady`, callable inside `#expect`.
    func interimReady() -> Bool { machine.interimReady() }

    /// `streamEnded`, callable inside `#expect`.
    func streamEnded() -> Bool { machine.streamEnded() }
}
