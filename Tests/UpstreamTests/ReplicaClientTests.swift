import HTTPCore
import TestSupport
import Testing
import Upstream

/// The client `larder health` and `larder fanout` call replicas with, against a real loopback server.
@Suite struct ReplicaClientTests {
    @Test func fieldsAreSentAsGivenAnEmptyValueIncludedAndTheBodyComesBack() throws {
        let origin = try StubOrigin()
        defer { origin.stop() }
        origin.respond(to: "/cache", with: .ok("listed"))
        let response = try ReplicaClient().send(
            "GET", url: origin.url("/cache"), headers: [("Authorization", "Bearer t"), ("X-Empty", "")])
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "listed")
        let request = try #require(origin.requests(for: "/cache").first)
        #expect(request.headers["Authorization"] == "Bearer t")
        // `X-Empty:` would have told libcurl to drop the field; it arrives, empty.
        #expect(request.headers["X-Empty"] == "")
        #expect(request.headers["User-Agent"] == "larder-cli")
    }

    @Test func aBodyOverTheBoundIsRefused() throws {
        let origin = try StubOrigin()
        defer { origin.stop() }
        origin.respond(to: "/big", with: .ok(bytes: [UInt8](repeating: 0x61, count: 4096)))
        #expect(throws: ReplicaClientError.self) {
            try ReplicaClient(maxResponseBytes: 1024).send("GET", url: origin.url("/big"))
        }
    }
}
