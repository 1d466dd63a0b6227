import Foundation
import TestSupport
import Testing

/// Runs the built `larder` binary: it loads the chain from `--db` (seeding a new database), serves
/// `/filters`, keeps changes across a real process restart, and honours `--default-policy`.
@Suite(.serialized) struct FiltersServeWiringTests {
    /// A request with a JSON body, if any.
    static func send(_ larder: LarderProcess, _ method: String, _ path: String, body: String? = nil) throws
        -> RawHTTPResponse
    {
        try larder.request(method, path, headers: body == nil ? [] : ["Content-Type: application/json"], body: body)
    }

    @Test func serveSeedsTheChainKeepsChangesAcrossARestartAndTakesTheDefaultPolicy() async throws {
        let directory = StorageTestDirectory()
        let first = try await LarderProcess.start(
            environment: ["LARDER_DEFAULT_POLICY": "bypass"], database: directory.file())
        defer { first.stop() }
        let seeded = try Self.send(first, "GET", "/filters")
        #expect(seeded.status == 200)
        #expect(seeded.header("ETag") == "\"1\"")
        #expect(seeded.text.contains(#""name":"images""#))
        let explained = try Self.send(first, "GET", "/filters/explain?url=http%3A%2F%2F127.0.0.1%2Findex.html")
        #expect(explained.text.contains(#""defaultPolicy":"bypass""#))
        #expect(
            try Self.send(
                first, "POST", "/filters?before=images",
                body: #"{"name":"pages","match":{"pathPrefix":"/pages/"},"action":"bypass"}"#
            ).status == 201)
        first.stop()

        // A second process on the same database: what the first changed is still there.
        let second = try await LarderProcess.start(arguments: ["--default-policy", "http"], database: directory.file())
        defer { second.stop() }
        let listed = try Self.send(second, "GET", "/filters")
        #expect(listed.header("ETag") == "\"2\"")
        #expect(listed.text.contains(#""filters":[{"name":"pages""#))
        let explainedAgain = try Self.send(second, "GET", "/filters/explain?url=http%3A%2F%2F127.0.0.1%2Fa.txt")
        #expect(explainedAgain.text.contains(#""defaultPolicy":"http""#))
        second.stop()
    }

    @Test func aBadDefaultPolicyStopsServeBeforeItListens() async throws {
        let directory = StorageTestDirectory()
        let result = try await LarderProcess.run([
            "serve", "--host", "127.0.0.1", "--port", "0", "--db", directory.file(), "--default-policy",
            "store-everything",
        ])
        #expect(!result.output.contains("listening on"))
        #expect(result.status != 0)
        #expect(result.output.contains("--default-policy"))
    }
}
