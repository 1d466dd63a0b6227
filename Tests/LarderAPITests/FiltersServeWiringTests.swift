import Foundation
import TestSupport
import Testing

/// Runs the built `larder` binary: it loads the chain from `--db` (seeding a new database), serves
/// `/filters`, keeps changes across a real process restart, and honours `--default-policy`.
@Suite(.serialized) struct FiltersServeWiringTests {
    static func send(_ port: Int, _ method: String, _ path: String, body: String? = nil) throws -> RawHTTPResponse {
        let client = try RawSocketClient(port: port)
        var text = "\(method) \(path) HTTP/1.1\r\nHost: test\r\nConnection: close\r\n"
        if let body {
            text += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body
        } else {
            text += "\r\n"
        }
        try client.send(text)
        return try client.readResponse()
    }

    static func stop(_ process: Process) {
        process.terminate()
        process.waitUntilExit()
    }

    @Test func serveSeedsTheChainKeepsChangesAcrossARestartAndTakesTheDefaultPolicy() async throws {
        let directory = StorageTestDirectory()
        let log = URL(fileURLWithPath: directory.file("larder.log"))
        let (first, firstPort) = try await ServeCacheWiringTests.start(
            ["--db", directory.file()], environment: ["LARDER_DEFAULT_POLICY": "bypass"], log: log)
        defer { if first.isRunning { first.terminate() } }
        let port = try #require(
            firstPort, "larder did not start: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
        let seeded = try Self.send(port, "GET", "/filters")
        #expect(seeded.status == 200)
        #expect(seeded.header("ETag") == "\"1\"")
        #expect(seeded.text.contains(#""name":"images""#))
        let explained = try Self.send(port, "GET", "/filters/explain?url=http%3A%2F%2F127.0.0.1%2Findex.html")
        #expect(explained.text.contains(#""defaultPolicy":"bypass""#))
        #expect(
            try Self.send(
                port, "POST", "/filters?before=images",
                body: #"{"name":"pages","match":{"pathPrefix":"/pages/"},"action":"bypass"}"#
            ).status == 201)
        Self.stop(first)

        let secondLog = URL(fileURLWithPath: directory.file("larder2.log"))
        let (second, secondPort) = try await ServeCacheWiringTests.start(
            ["--db", directory.file(), "--default-policy", "http"], environment: [:], log: secondLog)
        defer { if second.isRunning { second.terminate() } }
        let again = try #require(secondPort, "larder did not restart")
        let listed = try Self.send(again, "GET", "/filters")
        #expect(listed.header("ETag") == "\"2\"")
        #expect(listed.text.contains(#""filters":[{"name":"pages""#))
        let explainedAgain = try Self.send(again, "GET", "/filters/explain?url=http%3A%2F%2F127.0.0.1%2Fa.txt")
        #expect(explainedAgain.text.contains(#""defaultPolicy":"http""#))
        Self.stop(second)
    }

    @Test func aBadDefaultPolicyStopsServeBeforeItListens() async throws {
        let directory = StorageTestDirectory()
        let log = URL(fileURLWithPath: directory.file("larder.log"))
        let (process, port) = try await ServeCacheWiringTests.start(
            ["--db", directory.file(), "--default-policy", "store-everything"], environment: [:], log: log)
        defer { if process.isRunning { process.terminate() } }
        #expect(port == nil)
        process.waitUntilExit()
        #expect(process.terminationStatus != 0)
        #expect(((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("--default-policy"))
    }
}
