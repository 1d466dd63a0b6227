import Foundation
import LarderTesting
import TestSupport
import Testing

/// `serve`'s wiring, in process (`LarderTestApp(serving:)`): it loads the chain from `--db` (seeding a new
/// database), serves `/filters`, keeps changes when the application is wired again on the same database,
/// and honours `--default-policy`. A bad value stopping the process runs the built binary.
@Suite(.serialized) struct FiltersServeWiringTests {
    /// A request with a JSON body, if any.
    static func send(_ client: LarderTestClient, _ method: String, _ path: String, body: String? = nil) throws
        -> RawHTTPResponse
    {
        try client.request(
            method, path, headers: body == nil ? [] : [("Content-Type", "application/json")],
            body: body.map { Array($0.utf8) })
    }

    @Test func serveSeedsTheChainKeepsChangesAcrossARestartAndTakesTheDefaultPolicy() async throws {
        let directory = StorageTestDirectory()
        let first = try LarderTestApp(
            serving: ["db": directory.file()], environment: ["LARDER_DEFAULT_POLICY": "bypass"])
        try await first.test(.router) { client in
            let seeded = try Self.send(client, "GET", "/filters")
            #expect(seeded.status == 200)
            #expect(seeded.header("ETag") == "\"1\"")
            #expect(seeded.text.contains(#""name":"images""#))
            let explained = try Self.send(client, "GET", "/filters/explain?url=http%3A%2F%2F127.0.0.1%2Findex.html")
            #expect(explained.text.contains(#""defaultPolicy":"bypass""#))
            #expect(
                try Self.send(
                    client, "POST", "/filters?before=images",
                    body: #"{"name":"pages","match":{"pathPrefix":"/pages/"},"action":"bypass"}"#
                ).status == 201)
        }

        // Wired again on the same database: what the first changed is still there.
        let second = try LarderTestApp(serving: ["db": directory.file(), "default-policy": "http"])
        try await second.test(.router) { client in
            let listed = try Self.send(client, "GET", "/filters")
            #expect(listed.header("ETag") == "\"2\"")
            #expect(listed.text.contains(#""filters":[{"name":"pages""#))
            let explainedAgain = try Self.send(client, "GET", "/filters/explain?url=http%3A%2F%2F127.0.0.1%2Fa.txt")
            #expect(explainedAgain.text.contains(#""defaultPolicy":"http""#))
        }
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
