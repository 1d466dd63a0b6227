import Dispatch
import HTTPCore
import HTTPServer
import Synchronization
import Testing

/// Runs `body` against a server on 127.0.0.1:0 with short timeouts, and drains it afterwards.
func withServer(
    _ adjust: (inout HTTPServerConfiguration) -> Void = { _ in },
    responder: any HTTPResponder,
    accessLog: (@Sendable (HTTPAccessRecord) -> Void)? = nil,
    _ body: (HTTPServer) async throws -> Void
) async throws {
    var configuration = HTTPServerConfiguration(
        host: "127.0.0.1", port: 0, headerReadTimeout: 2, idleTimeout: 2, writeTimeout: 2, eventLoops: 2)
    adjust(&configuration)
    let server = HTTPServer(configuration: configuration, responder: responder, accessLog: accessLog)
    try server.start()
    do {
        try await body(server)
    } catch {
        await server.shutdown(grace: 0)
        throw error
    }
    await server.shutdown(grace: 0)
}

/// Answers 200 with the request's path (and its body, when there is one) as the content.
struct EchoResponder: HTTPResponder {
    let served = Counter()

    func respond(to request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter) {
        served.increment()
        var headers = HTTPHeaders([("Content-Type", "text/plain"), ("X-Connection", String(context.connectionID))])
        headers.add(name: "X-Remote-Loopback", value: String(context.remoteAddress.isLoopback))
        writer.send(HTTPResponse(status: .ok, headers: headers, body: .bytes(Array(request.path.utf8) + request.body)))
    }
}

/// A thread-safe counter for handlers and body sources.
final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    func increment() { value.add(1, ordering: .relaxed) }
    var count: Int { value.load(ordering: .relaxed) }
}

/// Polls `condition` until it holds or `timeout` seconds pass.
func eventually(timeout: Double = 3, _ condition: () -> Bool) async -> Bool {
    let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeout * 1e9)
    while DispatchTime.now().uptimeNanoseconds < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// A GET request's bytes.
func get(_ path: String, extra: String = "") -> String {
    "GET \(path) HTTP/1.1\r\nHost: test\r\n\(extra)\r\n"
}

/// Collects access records from the server's queues.
final class RecordBox: Sendable {
    private let records = Mutex<[HTTPAccessRecord]>([])
    func append(_ record: HTTPAccessRecord) { records.withLock { $0.append(record) } }
    var count: Int { records.withLock { $0.count } }
    var first: HTTPAccessRecord? { records.withLock { $0.first } }
}
