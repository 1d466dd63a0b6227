import Foundation
import HTTPCore
import LarderTesting
import Storage
import TestSupport
import Testing

/// End to end: a chain registered over REST on `serve`'s own wiring decides what `/fetch` does with a real
/// origin and a real SQLite file: `deny` is 403 before any origin request, `bypass` stores nothing,
/// `dropParams` makes two spellings one key and one origin request, and a filter on the User-Agent stores
/// for Safari and not for curl.
@Suite struct FiltersOverRESTFetchTests {
    static let chain = """
        {"filters":[
        {"name":"blocked","match":{"pathPrefix":"/private/"},"action":"deny"},
        {"name":"live","match":{"pathPrefix":"/live/"},"action":"bypass"},
        {"name":"live-store","match":{"pathPrefix":"/live/"}},
        {"name":"pages","match":{"pathPrefix":"/page"},"dropParams":["utm_*"]},
        {"name":"webkit","match":{"pathPrefix":"/img/","headers":{"User-Agent":{"contains":"AppleWebKit"}}},"ttl":600}
        ]}
        """
    static let safari = "Mozilla/5.0 (Macintosh) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15"
    static let curl = "curl/8.5.0"

    @Test func aChainPutOverRESTDecidesWhatFetchDoes() async throws {
        let origin = try StubOrigin()
        defer { origin.stop() }
        for path in ["/private/a", "/live/b", "/page", "/img/c.jpg"] {
            origin.respond(to: path, with: .ok("body of \(path)").header("Cache-Control", "public, max-age=600"))
        }
        let directory = StorageTestDirectory()
        // Requests no filter owns are not stored: only the chain decides.
        let app = try LarderTestApp(
            serving: ["db": directory.file(), "allow-network": "127.0.0.0/8", "default-policy": "bypass"])
        try await app.test(.live) { client in
            let put = try client.request(
                "PUT", "/filters", headers: [("Content-Type", "application/json")], body: Self.chain)
            #expect(put.status == 200, "\(put.text)")
            func fetch(_ path: String, userAgent: String = Self.curl) throws -> RawHTTPResponse {
                try client.request(
                    "GET", "/fetch?url=" + origin.url(path).percentEncoded(), headers: [("User-Agent", userAgent)])
            }
            func storedURLs() throws -> [String] {
                let listing = try client.request("GET", "/cache")
                let json = try JSONSerialization.jsonObject(with: Data(listing.body)) as? [String: Any]
                return (json?["entries"] as? [[String: Any]] ?? []).compactMap { $0["url"] as? String }
            }

            // deny: 403 problem+json, and the origin never hears of it.
            let denied = try fetch("/private/a")
            #expect(denied.status == 403)
            #expect(denied.header("Content-Type") == "application/problem+json")
            #expect(origin.requestCount(for: "/private/a") == 0)

            // bypass: relayed each time, never stored, though `live-store` after it would store.
            for _ in 0..<2 {
                let live = try fetch("/live/b")
                #expect(live.status == 200)
                #expect(live.text == "body of /live/b")
                #expect(live.header("X-Cache") == "BYPASS")
            }
            #expect(origin.requestCount(for: "/live/b") == 2)

            // dropParams: two spellings, one key, one origin request.
            #expect(try fetch("/page?id=7&utm_source=mail").header("X-Cache") == "MISS")
            #expect(await waitUntil(timeout: .seconds(10)) { (try? storedURLs().count) == 1 })
            let second = try fetch("/page?utm_campaign=spring&id=7")
            #expect(second.header("X-Cache") == "HIT")
            #expect(second.text == "body of /page")
            #expect(origin.requestCount(for: "/page") == 1)

            // A User-Agent condition: Safari's request is owned and stored, curl's falls to the default policy.
            #expect(try fetch("/img/c.jpg", userAgent: Self.curl).header("X-Cache") == "BYPASS")
            #expect(try fetch("/img/c.jpg", userAgent: Self.safari).header("X-Cache") == "MISS")
            #expect(await waitUntil(timeout: .seconds(10)) { (try? storedURLs().count) == 2 })
            #expect(try fetch("/img/c.jpg", userAgent: Self.safari).header("X-Cache") == "HIT")
            #expect(origin.requestCount(for: "/img/c.jpg") == 2)

            let stored = try storedURLs()
            #expect(stored.contains { $0.hasSuffix("/img/c.jpg") })
            #expect(!stored.contains { $0.contains("/live/") || $0.contains("/private/") })
        }
    }
}
