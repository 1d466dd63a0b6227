import Dispatch
import Glibc
import HTTPCore
public import HTTPServer
import Synchronization
public import TestSupport

/// Sends requests to a `LarderTestApp`, in process or over a socket, and reads the responses the same way
/// for both: a `RawHTTPResponse` with the status, the fields and the whole content. In process, the
/// response carries the framing field the server would add (`HTTPResponse.wireFraming`, HTTPCore's rule),
/// and no content where the server would send none (HEAD, 204, 304); not `Date`, `X-Request-Id` or a
/// problem's `instance`, which only a live server writes.
public final class LarderTestClient: Sendable {
    private enum Target: Sendable {
        case responder(any HTTPResponder)
        case server(HTTPServer)
    }

    private let target: Target

    init(responder: any HTTPResponder) { target = .responder(responder) }
    init(server: HTTPServer) { target = .server(server) }

    /// The live server, `nil` in process: for tests that watch a connection themselves (`RawSocketClient`).
    public var server: HTTPServer? {
        if case .server(let server) = target { return server }
        return nil
    }

    /// The live server's port.
    /// - Returns: the port; fails the test's precondition in process, where there is none.
    public var port: Int {
        guard let server else { preconditionFailure("an in-process (.router) test has no port") }
        return server.port
    }

    /// Sends one request and reads its response. Live, each request is a new connection that says
    /// `Connection: close`; in process, the request goes to the responder from a loopback client.
    /// - Parameters:
    ///   - method: the method.
    ///   - target: the request target (`/cache?limit=2`).
    ///   - headers: the fields besides `Host` (and `Content-Length`, added for a body).
    ///   - body: the content, if any.
    ///   - timeout: how long to wait for the whole response, in seconds.
    /// - Returns: the response; HEAD's carries no content.
    /// - Throws: a socket error live; `LarderTestClientError.noResponse` when none came in time.
    public func request(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
        timeout: Double = 30
    ) throws -> RawHTTPResponse {
        switch self.target {
        case .server(let server):
            return try RawSocketClient.exchange(
                port: server.port, method, target, headerLines: headers.map { "\($0): \($1)" }, body: body,
                timeout: timeout)
        case .responder(let responder):
            var fields = HTTPHeaders([("Host", "test")])
            for (name, value) in headers { fields.add(name: name, value: value) }
            if let body { fields.add(name: "Content-Length", value: String(body.count)) }
            let request = HTTPRequest(
                method: HTTPMethod(rawValue: method), target: target, headers: fields, body: body ?? [])
            let response = try Self.respond(responder, to: request, timeout: timeout)
            // The framing fields the server would write, chosen where the server chooses them (HTTPCore).
            let framing = response.wireFraming(respondingToHEAD: request.method == .head, version: .http1_1)
            var answered = response.headers.filter {
                !$0.name.equalsIgnoringASCIICase("Content-Length")
                    && !$0.name.equalsIgnoringASCIICase("Transfer-Encoding")
            }.map { (name: $0.name, value: $0.value) }
            switch framing.framing {
            case .contentLength(let length): answered.append((name: "Content-Length", value: String(length)))
            case .chunked: answered.append((name: "Transfer-Encoding", value: "chunked"))
            default: break
            }
            var content: [UInt8] = []
            if framing.sendsContent {
                content = try Self.content(of: response.body, timeout: timeout)
            } else if case .stream(let source, _) = response.body {
                // Not read, so released as the server releases it (HEAD, 204, 304): a store's reader closes.
                source.cancel()
            }
            return RawHTTPResponse(status: response.status.code, headers: answered, body: content)
        }
    }

    /// `request` with a text body.
    public func request(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: String, timeout: Double = 30
    ) throws -> RawHTTPResponse {
        try request(method, target, headers: headers, body: Array(body.utf8), timeout: timeout)
    }

    private static func respond(
        _ responder: any HTTPResponder, to request: HTTPRequest, timeout: Double
    ) throws -> HTTPResponse {
        let box = Box<HTTPResponse>()
        let loopback = HTTPAddress(ip: "127.0.0.1", port: 40000, isLoopback: true)
        let context = HTTPRequestContext(
            remoteAddress: loopback, localAddress: HTTPAddress(ip: "127.0.0.1", port: 80, isLoopback: true),
            connectionID: 0)
        responder.respond(to: request, context: context, writer: HTTPResponseWriter(delivering: { box.put($0) }))
        guard let response = box.take(timeout: timeout) else { throw LarderTestClientError.noResponse }
        return response
    }

    /// The whole content of a body, pulled as the server pulls a stream.
    private static func content(of body: HTTPResponseBody, timeout: Double) throws -> [UInt8] {
        switch body {
        case .empty: return []
        case .bytes(let bytes): return bytes
        case .file(let region):
            var bytes = [UInt8](repeating: 0, count: region.count)
            let read = bytes.withUnsafeMutableBytes {
                pread(region.descriptor, $0.baseAddress, region.count, off_t(region.offset))
            }
            guard read == region.count else { throw LarderTestClientError.bodyFailed("short read of a file body") }
            return bytes
        case .stream(let source, _):
            var bytes: [UInt8] = []
            while true {
                let box = Box<HTTPBodyChunk>()
                source.next(maxBytes: 256 * 1024) { box.put($0) }
                guard let chunk = box.take(timeout: timeout) else {
                    source.cancel()
                    throw LarderTestClientError.noResponse
                }
                switch chunk {
                case .bytes(let piece): bytes += piece
                case .end: return bytes
                case .failure(let error): throw LarderTestClientError.bodyFailed("\(error)")
                }
            }
        }
    }
}

/// Why an in-process request got no usable response.
public enum LarderTestClientError: Error, Sendable {
    /// The responder sent nothing (or the body stopped) within the timeout.
    case noResponse
    /// The body's source failed, as it would abort a live response mid-body.
    case bodyFailed(String)
}

/// One value handed from the thread that answers to the test's thread.
private final class Box<Value: Sendable>: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let slot = Mutex<Value?>(nil)

    func put(_ value: Value) {
        slot.withLock { $0 = value }
        semaphore.signal()
    }

    func take(timeout: Double) -> Value? {
        guard semaphore.wait(timeout: .now() + timeout) == .success else { return nil }
        return slot.withLock { $0 }
    }
}
