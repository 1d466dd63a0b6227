import HTTPCore
import HTTPServer
import TestSupport
import Testing

/// Responses whose head a handler prepared (a cache hit from memory): the bytes go out as prepared, the
/// server adds only `Connection`, HEAD gets no content, and a body far larger than the socket buffers
/// survives the partial writes of `writev`.
@Suite struct HTTPPreparedHeadTests {
    static func prepared(body: [UInt8]) -> HTTPResponse {
        var head: [UInt8] = []
        HTTPResponse(status: .ok, headers: HTTPHeaders([("Content-Type", "text/plain"), ("X-Cache", "HIT")]))
            .serializeFields(into: &head, framing: .contentLength(body.count))
        return HTTPResponse(
            preparedHead: head, status: .ok, body: .bytes(body), headers: HTTPHeaders([("X-Cache", "HIT")]))
    }

    @Test(arguments: [("GET", "HTTP/1.1", nil), ("HEAD", "HTTP/1.1", nil), ("GET", "HTTP/1.0", "keep-alive")])
    func preparedHeadGoesOutAsPrepared(method: String, version: String, connection: String?) async throws {
        let body = Array("prepared body".utf8)
        let responder = HTTPClosureResponder { _, _, writer in writer.send(Self.prepared(body: body)) }
        try await withServer(responder: responder) { server in
            let client = try RawSocketClient(port: server.port)
            defer { client.close() }
            let keepAlive = version == "HTTP/1.0" ? "Connection: keep-alive\r\n" : ""
            for _ in 0..<2 {
                try client.send("\(method) /p \(version)\r\nHost: test\r\n\(keepAlive)\r\n")
                let response = try client.readResponse(isHeadResponse: method == "HEAD")
                #expect(response.status == 200)
                #expect(response.header("Content-Length") == String(body.count))
                #expect(response.header("Content-Type") == "text/plain")
                #expect(response.header("Date") != nil)
                #expect(response.header("Connection") == connection)
                #expect(sameBytes(response.body, (method == "HEAD" ? [] : body)))
            }
        }
    }

    @Test func largeBodyToASlowReaderArrivesWholeThroughPartialWrites() async throws {
        // 1 MiB against a 4 KiB receive buffer: the server's writev cannot finish in one call.
        var pattern = [UInt8](repeating: 0x61, count: 1 << 20)
        for index in stride(from: 0, to: pattern.count, by: 997) {
            pattern[index] = UInt8(truncatingIfNeeded: index >> 10)
        }
        let body = pattern
        let responder = HTTPClosureResponder { _, _, writer in writer.send(Self.prepared(body: body)) }
        try await withServer(responder: responder) { server in
            let client = try RawSocketClient(port: server.port, timeout: 20, receiveBufferSize: 4096)
            defer { client.close() }
            try client.send("GET /p HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
            // Let the server fill the socket and wait on the write source before anything is read.
            try await Task.sleep(for: .milliseconds(200))
            let response = try client.readResponse()
            #expect(response.header("Content-Length") == String(body.count))
            #expect(response.body.count == body.count)
            #expect(sameBytes(response.body, body))
        }
    }
}
