import Dispatch
import HTTPCore
import HTTPServer
import Synchronization
import TestSupport
import Testing

/// A body source that counts how often it is pulled and whether it was cancelled.
final class CountingSource: HTTPBodySource {
    let pulls = Counter()
    let cancelled = Atomic<Bool>(false)
    /// Pieces to give before `.end`; `nil` never ends.
    let pieces: Int?
    let pieceSize: Int

    init(pieces: Int?, pieceSize: Int) {
        self.pieces = pieces
        self.pieceSize = pieceSize
    }

    func next(maxBytes: Int, deliver: @escaping @Sendable (HTTPBodyChunk) -> Void) {
        pulls.increment()
        if let pieces, pulls.count > pieces {
            deliver(.end)
            return
        }
        let byte = UInt8(ascii: "a") + UInt8(pulls.count % 26)
        deliver(.bytes([UInt8](repeating: byte, count: min(maxBytes, pieceSize))))
    }

    func cancel() { cancelled.store(true, ordering: .relaxed) }
    var wasCancelled: Bool { cancelled.load(ordering: .relaxed) }
}

/// A source that fails after its first piece.
final class FailingSource: HTTPBodySource {
    let pulls = Counter()
    func next(maxBytes: Int, deliver: @escaping @Sendable (HTTPBodyChunk) -> Void) {
        pulls.increment()
        if pulls.count == 1 {
            deliver(.bytes(Array("partial".utf8)))
        } else {
            deliver(.failure(SocketError(operation: "test", errno: 5)))
        }
    }
    func cancel() {}
}

/// A source whose pieces are at hand, which looks at the client's socket when first asked: whether any of
/// the response (its head) had reached the client by then.
final class PeekingSource: HTTPBodySource {
    private let client: Mutex<UnsafeSendableClient?> = Mutex(nil)
    let sawBytesAtFirstPull = Mutex<Bool?>(nil)
    let pulls = Counter()

    func watch(_ client: RawSocketClient) { self.client.withLock { $0 = UnsafeSendableClient(client: client) } }

    func next(maxBytes: Int, deliver: @escaping @Sendable (HTTPBodyChunk) -> Void) {
        pulls.increment()
        if pulls.count == 1 {
            let waiting = client.withLock { $0?.client.hasBytesWaiting }
            sawBytesAtFirstPull.withLock { $0 = waiting }
        }
        // The whole announced length in one piece: the connection asks for nothing after it.
        deliver(.bytes(Array("first piece".utf8)))
    }

    func cancel() {}
}

/// The test thread does not read while the source peeks.
struct UnsafeSendableClient: @unchecked Sendable {
    let client: RawSocketClient
}

/// A source that holds its first pull until the test answers it.
final class GatedSource: HTTPBodySource {
    let waiting = Mutex<(@Sendable (HTTPBodyChunk) -> Void)?>(nil)

    func next(maxBytes: Int, deliver: @escaping @Sendable (HTTPBodyChunk) -> Void) {
        waiting.withLock { $0 = deliver }
    }

    /// Answers the pull waiting now; `false` when none is.
    func answer(_ piece: HTTPBodyChunk) -> Bool {
        guard
            let deliver = waiting.withLock({ state in
                defer { state = nil }; return state
            })
        else { return false }
        deliver(piece)
        return true
    }

    func cancel() {}
}

struct StreamResponder: HTTPResponder {
    let source: any HTTPBodySource
    let length: Int?
    func respond(to request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter) {
        writer.send(HTTPResponse(status: .ok, body: .stream(source, length: length)))
    }
}

@Suite(.serialized) struct HTTPConnectionStreamingTests {
    @Test func unknownLengthStreamIsChunkedAndComplete() async throws {
        let source = CountingSource(pieces: 3, pieceSize: 1000)
        try await withServer(responder: StreamResponder(source: source, length: nil)) { server in
            let client = try RawSocketClient(port: server.port)
            try client.send(get("/stream"))
            let response = try client.readResponse()
            #expect(response.header("Transfer-Encoding") == "chunked")
            #expect(response.body.count == 3000)
            // The connection stays usable after the last chunk.
            try client.send(get("/again"))
            _ = try client.readResponse()
        }
    }

    @Test func knownLengthStreamGetsContentLength() async throws {
        let source = CountingSource(pieces: 2, pieceSize: 500)
        try await withServer(responder: StreamResponder(source: source, length: 1000)) { server in
            let client = try RawSocketClient(port: server.port)
            try client.send(get("/stream"))
            let response = try client.readResponse()
            #expect(response.header("Content-Length") == "1000")
            #expect(response.header("Transfer-Encoding") == nil)
            #expect(response.body.count == 1000)
        }
    }

    @Test func http10StreamIsDelimitedByClose() async throws {
        let source = CountingSource(pieces: 2, pieceSize: 100)
        try await withServer(responder: StreamResponder(source: source, length: nil)) { server in
            let client = try RawSocketClient(port: server.port)
            try client.send("GET /stream HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.header("Transfer-Encoding") == nil)
            #expect(response.header("Connection") == "close")
            #expect(response.body.count == 200)
        }
    }

    @Test func slowReaderBoundsHowMuchIsPulled() async throws {
        let source = CountingSource(pieces: nil, pieceSize: 64 * 1024)
        // The reader stalls on purpose: a 2 s write timeout could close the connection under a loaded
        // test run, and then no read would ever let the server pull again.
        try await withServer({ $0.writeTimeout = 30 }, responder: StreamResponder(source: source, length: nil)) {
            server in
            let client = try RawSocketClient(port: server.port, receiveBufferSize: 4096)
            try client.send(get("/endless"))
            _ = try client.readSome(upTo: 100)
            // Wait for the socket buffers to fill, then check the source is no longer being pulled.
            try await Task.sleep(for: .milliseconds(400))
            let settled = source.pulls.count
            try await Task.sleep(for: .milliseconds(400))
            #expect(source.pulls.count == settled)
            #expect(settled < 200, "an endless source was pulled \(settled) times while nobody read")
            // Reading lets the server pull again. How much must be read first depends on how far the kernel
            // grew the server's send buffer (up to 4 MiB on loopback): read until the pulls resume, with a
            // bound far above that.
            var read = 0
            while source.pulls.count == settled && read < 64 << 20 {
                let piece = try client.readSome(upTo: 64 * 1024)
                if piece.isEmpty { break }  // the server closed: the expectation below fails
                read += piece.count
            }
            #expect(await eventually { source.pulls.count > settled })
        }
    }

    @Test func clientDisconnectCancelsTheSource() async throws {
        let source = CountingSource(pieces: nil, pieceSize: 64 * 1024)
        try await withServer(responder: StreamResponder(source: source, length: nil)) { server in
            let client = try RawSocketClient(port: server.port, receiveBufferSize: 4096)
            try client.send(get("/endless"))
            _ = try client.readSome(upTo: 100)
            client.close(reset: true)
            #expect(await eventually { source.wasCancelled })
            #expect(await eventually { server.connectionCount == 0 })
        }
    }

    @Test func readerThatStopsReadingIsDroppedAfterTheWriteTimeout() async throws {
        let source = CountingSource(pieces: nil, pieceSize: 64 * 1024)
        try await withServer({ $0.writeTimeout = 0.3 }, responder: StreamResponder(source: source, length: nil)) {
            server in
            let client = try RawSocketClient(port: server.port, receiveBufferSize: 4096)
            try client.send(get("/endless"))
            _ = try client.readSome(upTo: 100)
            #expect(!source.wasCancelled)
            #expect(await eventually(timeout: 5) { source.wasCancelled })
            #expect(await eventually { server.connectionCount == 0 })
        }
    }

    @Test func failingSourceAbortsTheConnection() async throws {
        let source = FailingSource()
        try await withServer(responder: StreamResponder(source: source, length: nil)) { server in
            let client = try RawSocketClient(port: server.port)
            try client.send(get("/fails"))
            // The head and the first chunk arrive, then the connection ends without the last chunk.
            #expect(throws: RawSocketError.self) { try client.readResponse() }
        }
    }

    @Test func headOfAStreamCancelsItAndSendsTheLength() async throws {
        let source = CountingSource(pieces: 2, pieceSize: 500)
        try await withServer(responder: StreamResponder(source: source, length: 1000)) { server in
            let client = try RawSocketClient(port: server.port)
            try client.send("HEAD /stream HTTP/1.1\r\nHost: test\r\n\r\n")
            let response = try client.readResponse(isHeadResponse: true)
            #expect(response.header("Content-Length") == "1000")
            #expect(source.wasCancelled)
            #expect(source.pulls.count == 0)
        }
    }

    @Test func aFirstPieceAtHandGoesOutWithTheHead() async throws {
        let source = PeekingSource()
        try await withServer(responder: StreamResponder(source: source, length: 11)) { server in
            let client = try RawSocketClient(port: server.port)
            source.watch(client)
            try client.send(get("/ready"))
            #expect(await waitUntil(timeout: .seconds(10)) { source.sawBytesAtFirstPull.withLock { $0 } != nil })
            // The piece was asked for before anything was written: head and piece leave in one write.
            #expect(source.sawBytesAtFirstPull.withLock { $0 } == false)
            let response = try client.readResponse()
            #expect(response.header("Content-Length") == "11")
            #expect(response.text == "first piece")
            try client.send(get("/again"))
            #expect(try client.readResponse().text == "first piece")
        }
    }

    @Test func aFirstPieceNotAtHandDoesNotHoldBackTheHead() async throws {
        let source = GatedSource()
        try await withServer(responder: StreamResponder(source: source, length: nil)) { server in
            let client = try RawSocketClient(port: server.port)
            try client.send(get("/slow"))
            // The head arrives while the body's first piece is still awaited.
            let head = String(decoding: try client.readSome(upTo: 64), as: UTF8.self)
            #expect(head.hasPrefix("HTTP/1.1 200"))
            #expect(source.answer(.bytes(Array("late".utf8))))
            #expect(await waitUntil(timeout: .seconds(10)) { source.answer(.end) })
            var text = head
            while !text.hasSuffix("\r\n0\r\n\r\n") {
                text += String(decoding: try client.readSome(upTo: 1024), as: UTF8.self)
            }
            #expect(text.hasSuffix("\r\n\r\n4\r\nlate\r\n0\r\n\r\n"))
        }
    }

    @Test(arguments: [0, nil] as [Int?])
    func anEmptyStreamAnsweredAtOnceIsCompleteAndKeepsTheConnection(length: Int?) async throws {
        let source = CountingSource(pieces: 0, pieceSize: 10)
        try await withServer(responder: StreamResponder(source: source, length: length)) { server in
            let client = try RawSocketClient(port: server.port)
            for _ in 0..<2 {
                try client.send(get("/empty"))
                let response = try client.readResponse()
                #expect(response.status == 200)
                #expect(response.body.isEmpty)
                if length == 0 { #expect(response.header("Content-Length") == "0") }
            }
        }
    }
}
