import Dispatch
import Glibc
import HTTPCore
import HTTPServer
import Synchronization
import TestSupport
import Testing

/// Holds responses back until the test releases them, and tells when a request has arrived.
final class GateResponder: HTTPResponder {
    let arrived = Counter()
    private let writers = Mutex<[HTTPResponseWriter]>([])

    func respond(to request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter) {
        writers.withLock { $0.append(writer) }
        arrived.increment()
    }

    func releaseAll() {
        let waiting = writers.withLock { writers in
            defer { writers.removeAll() }
            return writers
        }
        for writer in waiting { writer.send(HTTPResponse(status: .ok, body: .bytes(Array("done".utf8)))) }
    }
}

@Suite(.serialized) struct HTTPServerTests {
    @Test func portZeroBindsAnEphemeralPortAndReportsIt() async throws {
        try await withServer(responder: EchoResponder()) { server in
            #expect(server.port > 0)
            let client = try RawSocketClient(port: server.port)
            try client.send(get("/"))
            #expect(try client.readResponse().status == 200)
        }
    }

    @Test func bindingAPortInUseThrowsSocketError() async throws {
        try await withServer(responder: EchoResponder()) { server in
            let second = HTTPServer(
                configuration: HTTPServerConfiguration(host: "127.0.0.1", port: server.port), responder: EchoResponder()
            )
            #expect(throws: SocketError.self) { try second.start() }
        }
    }

    @Test func connectionsBeyondTheLimitGet503() async throws {
        try await withServer({ $0.maxConnections = 1 }, responder: EchoResponder()) { server in
            let first = try RawSocketClient(port: server.port)
            try first.send(get("/first"))
            #expect(try first.readResponse().status == 200)
            let second = try RawSocketClient(port: server.port)
            try second.send(get("/second"))
            let rejected = try second.readResponse()
            #expect(rejected.status == 503)
            #expect(rejected.header("Content-Type") == "application/problem+json")
            #expect(rejected.header("Connection") == "close")
            #expect(second.isClosedByServer())
            // The first connection is unaffected.
            try first.send(get("/again"))
            #expect(try first.readResponse().status == 200)
        }
    }

    @Test func drainLetsTheRequestInFlightFinishAndRefusesNewConnections() async throws {
        let gate = GateResponder()
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0), responder: gate)
        try server.start()
        let port = server.port
        let busy = try RawSocketClient(port: port)
        let idle = try RawSocketClient(port: port)
        try busy.send(get("/slow"))
        #expect(await eventually { gate.arrived.count == 1 })
        let done = Counter()
        server.shutdown(grace: 5) { done.increment() }
        // The idle keep-alive connection is closed at once; new connections are refused.
        #expect(idle.isClosedByServer())
        #expect(await eventually { (try? RawSocketClient(port: port)) == nil })
        #expect(done.count == 0)
        gate.releaseAll()
        let response = try busy.readResponse()
        #expect(response.status == 200)
        #expect(response.header("Connection") == "close")
        #expect(busy.isClosedByServer())
        #expect(await eventually { done.count == 1 })
    }

    @Test func drainForceClosesWhatOutlivesTheGrace() async throws {
        let gate = GateResponder()
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0), responder: gate)
        try server.start()
        let client = try RawSocketClient(port: server.port)
        try client.send(get("/never"))
        #expect(await eventually { gate.arrived.count == 1 })
        let done = Counter()
        server.shutdown(grace: 0.2) { done.increment() }
        #expect(client.isClosedByServer())
        #expect(await eventually { done.count == 1 })
        // An answer after the close goes nowhere and does not crash.
        gate.releaseAll()
    }

    @Test func drainLetsARequestStillArrivingInPiecesComplete() async throws {
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0), responder: EchoResponder())
        try server.start()
        let client = try RawSocketClient(port: server.port)
        try client.send("POST /up HTTP/1.1\r\nHost: test\r\nContent-Length: 5\r\n\r\nhe")
        try await Task.sleep(for: .milliseconds(100))
        let done = Counter()
        server.shutdown(grace: 5) { done.increment() }
        try await Task.sleep(for: .milliseconds(100))
        try client.send("ll")
        try await Task.sleep(for: .milliseconds(50))
        try client.send("o")
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.text == "/uphello")
        #expect(response.header("Connection") == "close")
        #expect(await eventually { done.count == 1 })
    }
}
