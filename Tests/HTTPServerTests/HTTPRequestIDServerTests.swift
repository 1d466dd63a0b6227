import HTTPCore
import HTTPServer
import TestSupport
import Testing

/// The server's side of request identifiers: every response carries `X-Request-Id` (the caller's when
/// usable, else a new one, never a handler's), problems carry it as `instance`, the access record has it,
/// and the handler sees the same one in its context.
struct HTTPRequestIDServerTests {
    /// Answers with the context's identifier as its body, and a stray `X-Request-Id` of its own that the
    /// server must not write.
    static let responder = HTTPClosureResponder { request, context, writer in
        if request.path == "/problem" {
            return writer.send(
                ProblemDetails(type: "https://larder.dev/problems/x", title: "Bad Request", status: 400).makeResponse())
        }
        writer.send(
            HTTPResponse(
                status: .ok, headers: HTTPHeaders([("X-Request-Id", "from-the-handler")]),
                body: .bytes(Array(context.requestID.description.utf8))))
    }

    /// Whether `text` is a made identifier: `xxxxxxxx-xxxx-8xxx-[89ab]xxx-xxxxxxxxxxxx`, lower-case hex.
    static func isMadeShape(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36, bytes[14] == UInt8(ascii: "8"), "89ab".utf8.contains(bytes[19]) else { return false }
        return bytes.indices.allSatisfy { index in
            [8, 13, 18, 23].contains(index)
                ? bytes[index] == UInt8(ascii: "-") : "0123456789abcdef".utf8.contains(bytes[index])
        }
    }

    static func ids(_ response: RawHTTPResponse) -> [String] {
        response.headers.filter { $0.name.lowercased() == "x-request-id" }.map(\.value)
    }

    @Test func usableCallerIDIsEchoedAndSeenByTheHandler() async throws {
        try await withServer(responder: Self.responder) { server in
            let client = try RawSocketClient(port: server.port)
            try client.send(get("/", extra: "X-Request-Id: caller-7\r\n"))
            let response = try client.readResponse()
            #expect(Self.ids(response) == ["caller-7"])
            #expect(response.text == "caller-7")
        }
    }

    @Test(arguments: ["", String(repeating: "y", count: 129), "two words"])
    func unusableOrMissingCallerIDIsReplacedByANewOne(_ given: String) async throws {
        try await withServer(responder: Self.responder) { server in
            let client = try RawSocketClient(port: server.port)
            try client.send(get("/", extra: "X-Request-Id: \(given)\r\n") + get("/"))
            let first = try client.readResponse()
            let second = try client.readResponse()
            for response in [first, second] {
                let ids = Self.ids(response)
                #expect(ids.count == 1)
                #expect(ids.first == response.text, "the handler saw the id the caller got")
                #expect(Self.isMadeShape(response.text), "\(response.text)")
            }
            #expect(first.text != second.text)
        }
    }

    @Test func problemCarriesTheIDAsInstance() async throws {
        try await withServer(responder: Self.responder) { server in
            let client = try RawSocketClient(port: server.port)
            try client.send(get("/problem", extra: "X-Request-Id: job/7\r\n") + get("/problem"))
            let given = try client.readResponse()
            #expect(given.status == 400)
            #expect(given.text.hasSuffix(#","instance":"tag:larder.dev,2026:request-id:job%2F7"}"#), "\(given.text)")
            #expect(given.header("Content-Length") == String(given.body.count))
            let made = try client.readResponse()
            let id = try #require(Self.ids(made).first)
            #expect(made.text.hasSuffix(#","instance":"urn:uuid:\#(id)"}"#), "\(made.text)")
        }
    }

    @Test func parseFailureAnsweredWithoutARequestCarriesAnID() async throws {
        try await withServer(responder: Self.responder) { server in
            let client = try RawSocketClient(port: server.port)
            try client.send("GET / HTTP/9.9\r\nHost: test\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 505)
            let id = try #require(Self.ids(response).first)
            #expect(response.text.contains(#""instance":"urn:uuid:\#(id)""#), "\(response.text)")
        }
    }

    @Test func accessRecordHasTheID() async throws {
        let records = RecordBox()
        try await withServer(responder: Self.responder, accessLog: { records.append($0) }) { server in
            let client = try RawSocketClient(port: server.port)
            try client.send(get("/", extra: "X-Request-Id: logged-1\r\n"))
            _ = try client.readResponse()
            #expect(await eventually { records.count == 1 })
            #expect(records.first?.requestID.description == "logged-1")
        }
    }
}
