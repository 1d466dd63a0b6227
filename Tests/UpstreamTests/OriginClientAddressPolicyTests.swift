import Glibc
import HTTPCore
import TestSupport
import Testing
import Upstream

/// The SSRF table, live: each URL points at a real stub on loopback, and the stub must see nothing.
struct OriginClientAddressPolicyTests {
    @Test(arguments: [
        "http://127.0.0.1:PORT/", "http://2130706433:PORT/", "http://0x7f000001:PORT/", "http://0177.0.0.1:PORT/",
        "http://127.1:PORT/", "http://0x7f.1:PORT/", "http://127.000.000.001:PORT/", "http://[::1]:PORT/",
        "http://[::ffff:127.0.0.1]:PORT/", "http://[::ffff:7f00:1]:PORT/", "http://localhost:PORT/",
        "http://LOCALHOST:PORT/", "http://0.0.0.0:PORT/", "http://0:PORT/", "http://[::]:PORT/",
    ])
    func loopbackSpellingsAreRefusedWithoutConnecting(template: String) async throws {
        let origin = try StubOrigin()
        origin.respond(to: "/", with: .ok("secret"))
        let client = OriginClient(
            configuration: OriginClient.Configuration(limits: OriginLimits(connectTimeout: .seconds(3))))
        let delegate = RecordingFetchDelegate()
        client.fetch(
            OriginRequest(url: template.split(separator: "PORT").joined(separator: String(origin.port))),
            delegate: delegate)

        let error = try #require(await delegate.error())
        guard case .addressRefused(_, let reason) = error else {
            Issue.record("\(template): expected addressRefused, got \(error)")
            return
        }
        #expect([.loopback, .unspecified, .thisNetwork].contains(reason.kind))
        #expect(error.httpStatus == 403)
        #expect(delegate.bodyCount == 0)
        #expect(origin.connectionCount == 0)
    }

    @Test func redirectToAPrivateAddressIsReturnedNotFollowed() async throws {
        let origin = try StubOrigin()
        let inner = try StubOrigin()
        inner.respond(to: "/admin", with: .ok("secret"))
        origin.respond(to: "/go", with: .redirect(to: inner.url("/admin")))
        origin.respond(to: "/meta", with: .redirect(to: "http://169.254.169.254/latest/meta-data/", status: 301))
        let client = makeLoopbackClient()
        for path in ["/go", "/meta"] {
            let delegate = RecordingFetchDelegate()
            client.fetch(OriginRequest(url: origin.url(path)), delegate: delegate)
            let status = try #require(await delegate.finished()).get().status
            #expect(status == (path == "/go" ? 302 : 301))
        }
        #expect(inner.connectionCount == 0)
    }

    @Test(arguments: ["127.0.0.1", "0.0.0.0"])
    func ownListeningAddressIsRefusedEvenWhenAllowed(address: String) async throws {
        let origin = try StubOrigin()
        origin.respond(to: "/", with: .ok("me"))
        let own = IPEndpoint(address: try #require(IPAddress(address)), port: origin.port)
        let client = makeLoopbackClient(ownEndpoints: [own])
        let delegate = RecordingFetchDelegate()
        client.fetch(OriginRequest(url: origin.url("/")), delegate: delegate)

        guard case .addressRefused(_, .ownAddress)? = await delegate.error() else {
            Issue.record("expected ownAddress refusal, got \(delegate.results)")
            return
        }
        #expect(origin.connectionCount == 0)
    }

    @Test func allowedNetworkLetsLoopbackThrough() async throws {
        let origin = try StubOrigin()
        origin.respond(to: "/", with: .ok("ok"))
        let client = makeLoopbackClient()
        let delegate = RecordingFetchDelegate()
        client.fetch(OriginRequest(url: "http://2130706433:\(origin.port)/"), delegate: delegate)
        #expect(try #require(await delegate.finished()).get().status == 200)
        #expect(origin.connectionCount == 1)
    }
}
