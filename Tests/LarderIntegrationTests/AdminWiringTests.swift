import LarderTesting
import TestSupport
import Testing

/// `serve`'s wiring of the admin routes, in process (`LarderTestApp(serving:)`): every admin route shares
/// one policy and one set of sessions, and `--metrics-access admin` puts `/metrics` behind it.
@Suite struct AdminWiringTests {
    static let token = "integration-token-19"
    static let readToken = "viewer-secret-0001"

    @Test func oneLoginOpensEveryAdminRoute() async throws {
        let directory = StorageTestDirectory()
        let app = try LarderTestApp(serving: ["db": directory.file(), "admin-token": Self.token])
        try await app.test(.router) { client in
            let form = [("Content-Type", "application/x-www-form-urlencoded")]
            let login = try client.request("POST", "/ui/login", headers: form, body: "token=\(Self.token)")
            #expect(login.status == 303)
            let setCookie = try #require(login.header("Set-Cookie"))
            let pair = String(setCookie.prefix { $0 != ";" })
            let cookie = [("Cookie", pair)]
            for path in [
                "/ui/", "/cache", "/filters", "/fetches", "/filters/explain?url=https%3A%2F%2Fa.example%2Fa.png",
            ] {
                #expect(try client.request("GET", path, headers: cookie).status == 200, "\(path)")
                #expect(try client.request("GET", path).status == (path == "/ui/" ? 200 : 401), "\(path)")
            }
            // HEAD of an entry is answered by the GET route, behind the same guard.
            let unknownEntry = "/cache/" + String(repeating: "0", count: 64)
            #expect(try client.request("HEAD", unknownEntry).status == 401)
            #expect(try client.request("HEAD", unknownEntry, headers: cookie).status == 404)
            #expect(try client.request("GET", "/ui/", headers: cookie).text.contains("operator.js"))
            #expect(try client.request("DELETE", "/cache", headers: cookie).status == 403)
            let purge = try client.request("DELETE", "/cache", headers: cookie + [("X-Larder-CSRF", "1")])
            #expect(purge.status == 200)
            #expect(purge.text == #"{"purged":0}"#)
        }
    }

    @Test func metricsCanBeClosedToAllButAdminClients() async throws {
        let directory = StorageTestDirectory()
        let app = try LarderTestApp(serving: [
            "db": directory.file(), "admin-read-token": "viewer=\(Self.readToken)", "metrics-access": "admin",
        ])
        try await app.test(.router) { client in
            #expect(try client.request("GET", "/metrics").status == 401)
            let scrape = try client.request("GET", "/metrics", headers: [("Authorization", "Bearer \(Self.readToken)")])
            #expect(scrape.status == 200)
            #expect(scrape.text.contains(#"larder_fetch_refusals_total{reason="signature_mismatch"} 0"#))
        }
    }
}
