import Foundation
import HTTPCore
import TestSupport
import Testing
import Upstream

/// Which failures are a disconnection from the origin (RFC 9111 §4.2.4), as the fetch path needs to know
/// to serve stale: nothing reached or nothing answered, never an answer or Larder's own refusal.
struct OriginClientDisconnectionTests {
    private func failure(
        of url: (StubOrigin) -> String, respond response: StubOriginResponse = .ok("x"),
        limits: OriginLimits = OriginLimits(connectTimeout: .seconds(5), totalTimeout: .seconds(10)),
        allowLoopback: Bool = true
    ) async throws -> OriginError? {
        let origin = try StubOrigin()
        origin.respond(to: "/x", with: response)
        let client = makeLoopbackClient(limits: limits, allowNetworks: allowLoopback ? ["127.0.0.0/8"] : [])
        let delegate = RecordingFetchDelegate()
        client.fetch(OriginRequest(url: url(origin)), delegate: delegate)
        let result = try #require(await delegate.finished(timeout: .seconds(15)))
        if case .failure(let error) = result { return error }
        return nil
    }

    @Test func aStoppedOriginIsADisconnection() async throws {
        let error = try await failure(of: { origin in
            let url = origin.url("/x")
            origin.stop()
            return url
        })
        guard case .connectFailed? = error else {
            Issue.record("expected connectFailed, got \(String(describing: error))")
            return
        }
        #expect(error?.isDisconnection == true)
    }

    @Test func aConnectionClosedBeforeTheHeadIsLost() async throws {
        let error = try await failure(of: { $0.url("/x") }, respond: .raw(""))
        guard case .connectionLost? = error else {
            Issue.record("expected connectionLost, got \(String(describing: error))")
            return
        }
        #expect(error?.isDisconnection == true)
        // To a caller it is still the protocol error it always was.
        #expect(error?.kind == "origin-protocol-error")
        #expect(error?.httpStatus == 502)
    }

    @Test func aFailedTLSHandshakeIsLost() async throws {
        // A listener that answers the ClientHello with plain text: the handshake fails at once.
        let listener = try PlainTextListener(reply: "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
        let client = makeLoopbackClient()
        let delegate = RecordingFetchDelegate()
        client.fetch(OriginRequest(url: "https://127.0.0.1:\(listener.port)/x"), delegate: delegate)
        let result = try #require(await delegate.finished(timeout: .seconds(15)))
        guard case .failure(.connectionLost) = result else {
            Issue.record("expected connectionLost, got \(result)")
            return
        }
        #expect(delegate.head == nil)
    }

    @Test func noHeadBeforeTheTimeoutIsADisconnection() async throws {
        let error = try await failure(
            of: { $0.url("/x") }, respond: .silent,
            limits: OriginLimits(connectTimeout: .seconds(5), totalTimeout: .milliseconds(500)))
        guard case .timeout? = error else {
            Issue.record("expected timeout, got \(String(describing: error))")
            return
        }
        #expect(error?.isDisconnection == true)
    }

    @Test func aResetAfterTheHeadIsAProtocolErrorNotADisconnection() async throws {
        let response = StubOriginResponse.ok(bytes: Array(repeating: 4, count: 100_000)).trickled(chunkSize: 10_000)
            .ending(.resetAfter(bytes: 30_000))
        let error = try await failure(of: { $0.url("/x") }, respond: response)
        guard case .protocolError? = error else {
            Issue.record("expected protocolError, got \(String(describing: error))")
            return
        }
        #expect(error?.isDisconnection == false)
    }

    @Test func aMalformedHeadIsNotADisconnection() async throws {
        let error = try await failure(of: { $0.url("/x") }, respond: .raw("HELLO\r\n\r\n"))
        #expect(error != nil)
        #expect(error?.isDisconnection == false)
    }

    @Test func aRefusedAddressIsNeverADisconnection() async throws {
        // Loopback is not allowed by default: the address policy refuses it at connect time.
        let error = try await failure(of: { $0.url("/x") }, allowLoopback: false)
        guard case .addressRefused? = error else {
            Issue.record("expected addressRefused, got \(String(describing: error))")
            return
        }
        #expect(error?.isDisconnection == false)
    }
}

/// A TCP listener on 127.0.0.1 that answers each connection's first bytes with `reply` and closes it:
/// to a TLS client, a server that does not speak TLS.
private final class PlainTextListener: Sendable {
    let port: UInt16
    private let listener: Int32

    init(reply: String) throws {
        (listener, port) = try loopbackListener(backlog: 4)
        let fd = listener
        let bytes = Array(reply.utf8)
        Thread.detachNewThread {
            while true {
                let connection = accept(fd, nil, nil)
                guard connection >= 0 else { return }
                var buffer = [UInt8](repeating: 0, count: 4096)
                _ = read(connection, &buffer, buffer.count)
                _ = bytes.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
                close(connection)
            }
        }
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}
