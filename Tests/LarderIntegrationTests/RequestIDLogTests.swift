import TestSupport
import Testing

/// The access line names each request's identifier, in text and in JSON, as the response carries it.
@Suite struct RequestIDLogTests {
    @Test(arguments: ["text", "json"])
    func accessLineCarriesTheRequestID(format: String) async throws {
        let larder = try await LarderProcess.start(arguments: ["--log-format", format])
        defer { larder.stop() }
        let given = try larder.request("GET", "/livez", headers: ["X-Request-Id: log-me-1"])
        #expect(given.header("X-Request-Id") == "log-me-1")
        let made = try larder.request("GET", "/livez")
        let madeID = try #require(made.header("X-Request-Id"))
        let expected =
            format == "text"
            ? ["id=log-me-1", "id=\(madeID)"] : [#""request_id":"log-me-1""#, #""request_id":"\#(madeID)""#]
        #expect(
            await waitUntil(timeout: .seconds(5)) { expected.allSatisfy { larder.logText.contains($0) } },
            "\(larder.logText)")
    }
}
