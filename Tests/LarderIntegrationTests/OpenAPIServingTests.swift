import Foundation
import TestSupport
import Testing

/// `GET /openapi.yaml` on the built binary answers `openapi.yaml` byte for byte: the copy compiled
/// into the binary is the file, so a container without the source tree serves the same contract.
@Suite(.serialized) struct OpenAPIServingTests {
    /// `openapi.yaml` at the package's top, found from this source file's path.
    static let documentURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("openapi.yaml")

    @Test func servedDocumentIsTheFileByteForByte() async throws {
        let file = try [UInt8](Data(contentsOf: Self.documentURL))
        let server = try await LarderProcess.start()
        defer { server.stop() }
        let client = try RawSocketClient(port: server.port)
        try client.send("GET /openapi.yaml HTTP/1.1\r\nHost: test\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "application/yaml")
        #expect(response.body.count == file.count)
        #expect(sameBytes(response.body, file))
    }

    @Test func headAnswersTheDocumentsLengthWithoutItsBody() async throws {
        let file = try Data(contentsOf: Self.documentURL)
        let server = try await LarderProcess.start()
        defer { server.stop() }
        let client = try RawSocketClient(port: server.port)
        try client.send("HEAD /openapi.yaml HTTP/1.1\r\nHost: test\r\n\r\n")
        let response = try client.readResponse(isHeadResponse: true)
        #expect(response.status == 200)
        #expect(response.header("Content-Length") == String(file.count))
        #expect(response.body.isEmpty)
        // The connection stays usable: no stray body bytes precede the next response.
        try client.send("GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
        #expect(try client.readResponse().status == 200)
    }

    @Test(arguments: ["POST", "PUT", "DELETE"])
    func otherMethodsAre405WithAllow(method: String) async throws {
        let server = try await LarderProcess.start()
        defer { server.stop() }
        let client = try RawSocketClient(port: server.port)
        try client.send("\(method) /openapi.yaml HTTP/1.1\r\nHost: test\r\nContent-Length: 0\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 405)
        #expect(response.header("Allow") == "GET, HEAD")
    }
}
