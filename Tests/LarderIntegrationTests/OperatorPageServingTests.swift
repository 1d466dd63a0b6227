import Foundation
import TestSupport
import Testing

/// The operator page on the built binary: one login is honoured by every admin route (`larder serve`
/// gives them one policy and one set of sessions), and the page's files are the ones compiled in.
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

    @Test func oneLoginOpensEveryAdminRoute() async throws {
        let server = try await LarderProcess.start(arguments: ["--admin-token", Self.token])
        defer { server.stop() }
        let form = [("Content-Type", "application/x-www-form-urlencoded")]
        let login = try Self.request(server, "POST", "/ui/login", headers: form, body: "token=\(Self.token)")
        #expect(login.status == 303)
        let setCookie = try #require(login.header("Set-Cookie"))
        let pair = String(setCookie.prefix { $0 != ";" })
        let cookie = [("Cookie", pair)]
        for path in ["/ui/", "/cache", "/filters", "/fetches", "/filters/explain?url=https%3A%2F%2Fa.example%2Fa.png"] {
            #expect(try Self.request(server, "GET", path, headers: cookie).status == 200, "\(path)")
            #expect(try Self.request(server, "GET", path).status == (path == "/ui/" ? 200 : 401), "\(path)")
        }
        #expect(try Self.request(server, "GET", "/ui/", headers: cookie).text.contains("operator.js"))
        #expect(try Self.request(server, "DELETE", "/cache", headers: cookie).status == 403)
        let purge = try Self.request(server, "DELETE", "/cache", headers: cookie + [("X-Larder-CSRF", "1")])
        #expect(purge.status == 200)
        #expect(purge.text == #"{"purged":0}"#)
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
