import Foundation
import TestSupport
import Testing

/// The operator page on the built binary: a session does not outlive the process. (That one login opens
/// every admin route is the wiring's, tested in process: `AdminWiringTests`.)
@Suite(.serialized) struct OperatorPageServingTests {
    static let token = "integration-token-19"

    static func request(
        _ server: LarderProcess, _ method: String, _ path: String, headers: [(String, String)] = [],
        body: String? = nil
    ) throws -> RawHTTPResponse {
        let client = try RawSocketClient(port: server.port)
        defer { client.close() }
        var text = "\(method) \(path) HTTP/1.1\r\nHost: test\r\nConnection: close\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "Content-Length: \(body?.utf8.count ?? 0)\r\n\r\n" + (body ?? "")
        try client.send(text)
        return try client.readResponse()
    }

    @Test func aSessionDoesNotOutliveTheProcess() async throws {
        let first = try await LarderProcess.start(arguments: ["--admin-token", Self.token])
        let login = try Self.request(
            first, "POST", "/ui/login", headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: "token=\(Self.token)")
        first.stop()
        let pair = String(try #require(login.header("Set-Cookie")).prefix { $0 != ";" })
        let second = try await LarderProcess.start(arguments: ["--admin-token", Self.token])
        defer { second.stop() }
        // Sessions live in memory: the old cookie is nothing to a new process.
        #expect(try Self.request(second, "GET", "/cache", headers: [("Cookie", pair)]).status == 401)
        #expect(try Self.request(second, "GET", "/ui/", headers: [("Cookie", pair)]).text.contains("/ui/login"))
    }
}
