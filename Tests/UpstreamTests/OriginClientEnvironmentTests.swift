import Glibc
import TestSupport
import Testing
import Upstream

/// Tests that change this process's environment. `setenv` may move the `environ` array while another
/// thread copies it, and Foundation's `Process.run()` copies it for every child a test starts: beside the
/// parallel suites this crashed the test process inside `run()`. `scripts/test.sh` runs this suite with
/// the origin client's timing suites, on their own.
struct OriginClientEnvironmentTests {
    @Test func proxyEnvironmentCannotRerouteFetches() async throws {
        let origin = try StubOrigin()
        let proxy = try StubOrigin()
        origin.respond(to: "/direct", with: .ok("direct"))
        setenv("http_proxy", proxy.url("/"), 1)
        setenv("HTTP_PROXY", proxy.url("/"), 1)
        defer {
            unsetenv("http_proxy")
            unsetenv("HTTP_PROXY")
        }
        let client = makeLoopbackClient()
        let delegate = RecordingFetchDelegate()
        client.fetch(OriginRequest(url: origin.url("/direct")), delegate: delegate)
        _ = try #require(await delegate.finished()).get()
        #expect(sameBytes(delegate.body, Array("direct".utf8)))
        #expect(proxy.connectionCount == 0)
        #expect(origin.requestCount == 1)
    }
}
