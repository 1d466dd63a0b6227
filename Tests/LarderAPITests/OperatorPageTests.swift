import CacheCore
import Foundation
import HTTPCore
import HTTPServer
import LarderAPI
import Storage
import TestSupport
import Testing

/// The operator page's server side: who sees it, the login and its cookie, the CSRF header on
/// state-changing calls, and the headers that keep the page and the stored bodies it shows inert.
@Suite struct OperatorPageTests {
    static let token = "s3cret-operator-token"

    /// Logs in with `token` and returns the response.
    static func login(_ harness: CacheAPIHarness, token: String = token) throws -> RawHTTPResponse {
        try harness.request(
            "POST", "/ui/login", headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: "token=\(token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? token)")
    }

    /// The `name=value` of a `Set-Cookie` field, and its attributes in lower case.
    static func cookie(_ response: RawHTTPResponse) throws -> (pair: String, attributes: [String]) {
        let field = try #require(response.headers.first { $0.name.lowercased() == "set-cookie" }?.value)
        let parts = field.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        return (parts[0], parts.dropFirst().map { $0.lowercased() })
    }

    @Test func pageWithoutASessionIsTheLoginFormWhileATokenIsConfigured() async throws {
        try await withHarness(token: Self.token) { harness in
            let response = try harness.request("GET", "/ui/")
            #expect(response.status == 200)
            #expect(response.text.contains(#"<form method="post" action="/ui/login">"#))
            #expect(!response.text.contains("operator.js"))
            // The admin API itself still answers 401 without credentials.
            #expect(try harness.request("GET", "/cache").status == 401)
        }
    }

    @Test func loginWithTheTokenSetsAnHttpOnlyStrictCookieThatTheAdminRoutesAccept() async throws {
        try await withHarness(token: Self.token) { harness in
            let response = try Self.login(harness)
            #expect(response.status == 303)
            #expect(response.header("Location") == "/ui/")
            let (pair, attributes) = try Self.cookie(response)
            #expect(pair.hasPrefix("larder_session="))
            #expect(pair.count == "larder_session=".count + 64)
            #expect(attributes.contains("httponly"))
            #expect(attributes.contains("samesite=strict"))
            #expect(attributes.contains("path=/"))
            #expect(attributes.contains("max-age=43200"))
            #expect(!attributes.contains("domain") && !attributes.contains { $0.hasPrefix("domain=") })

            let page = try harness.request("GET", "/ui/", headers: [("Cookie", "theme=dark; \(pair)")])
            #expect(page.status == 200)
            #expect(page.text.contains(#"<script src="operator.js" defer></script>"#))
            #expect(try harness.request("GET", "/cache", headers: [("Cookie", pair)]).status == 200)
            #expect(harness.access.sessions?.count == 1)
        }
    }

    @Test(arguments: ["wrong-token", "", "s3cret-operator-toke", "s3cret-operator-token2"])
    func loginWithAnotherTokenIs401WithTheFormAndNoCookie(token: String) async throws {
        try await withHarness(token: Self.token) { harness in
            let response = try Self.login(harness, token: token)
            #expect(response.status == 401)
            #expect(response.header("Set-Cookie") == nil)
            #expect(response.header("WWW-Authenticate")?.hasPrefix("Bearer ") == true)
            #expect(response.text.contains("That token does not match."))
            #expect(response.text.contains(#"action="/ui/login""#))
            #expect(harness.access.sessions?.count == 0)
        }
    }

    @Test func loginThatIsNotAFormIs415() async throws {
        try await withHarness(token: Self.token) { harness in
            let response = try harness.request(
                "POST", "/ui/login", headers: [("Content-Type", "application/json")], body: #"{"token":"x"}"#)
            #expect(response.status == 415)
            #expect(response.header("Content-Type") == "application/problem+json")
        }
    }

    @Test(arguments: [
        "larder_session=", "larder_session=00", String(repeating: "a", count: 64),
        "larder_session=" + String(repeating: "0", count: 64), "other=1",
    ])
    func aForgedSessionCookieIsRefused(cookie: String) async throws {
        try await withHarness(token: Self.token) { harness in
            _ = try Self.login(harness)
            #expect(try harness.request("GET", "/cache", headers: [("Cookie", cookie)]).status == 401)
            let page = try harness.request("GET", "/ui/", headers: [("Cookie", cookie)])
            #expect(page.text.contains("/ui/login"))
        }
    }

    @Test func aStateChangingCallWithTheCookieNeedsTheCSRFHeader() async throws {
        try await withHarness(token: Self.token) { harness in
            let entry = try harness.put("https://a.example/keep.txt", Array("keep".utf8))
            let pair = try Self.cookie(try Self.login(harness)).pair
            let refused = try harness.request("DELETE", "/cache/\(entry.key.hex)", headers: [("Cookie", pair)])
            #expect(refused.status == 403)
            #expect(refused.text.contains("https://larder.dev/problems/missing-csrf-header"))
            #expect(try harness.store.entry(for: entry.key) != nil)
            let purge = try harness.request("DELETE", "/cache", headers: [("Cookie", pair)])
            #expect(purge.status == 403)
            #expect(try harness.store.entry(for: entry.key) != nil)

            let allowed = try harness.request(
                "DELETE", "/cache/\(entry.key.hex)", headers: [("Cookie", pair), ("X-Larder-CSRF", "1")])
            #expect(allowed.status == 204)
            #expect(try harness.store.entry(for: entry.key) == nil)
        }
    }

    @Test func aSessionOpenedWithAReadTokenCannotChangeState() async throws {
        let tokens = [
            AdminToken(name: "viewer", secret: "read-only-operator-token", scope: .read),
            AdminToken(name: "ops", secret: Self.token, scope: .full),
        ]
        try await withHarness(tokens: tokens) { harness in
            let entry = try harness.put("https://a.example/keep.txt", Array("keep".utf8))
            let pair = try Self.cookie(try Self.login(harness, token: "read-only-operator-token")).pair
            let listed = try harness.request("GET", "/cache", headers: [("Cookie", pair)])
            #expect(listed.status == 200)
            let refused = try harness.request(
                "DELETE", "/cache/\(entry.key.hex)", headers: [("Cookie", pair), ("X-Larder-CSRF", "1")])
            #expect(refused.status == 403)
            #expect(refused.text.contains("https://larder.dev/problems/insufficient-scope"))
            #expect(try harness.store.entry(for: entry.key) != nil)
        }
    }

    @Test func aBrowserRequestOnLoopbackNeedsTheCSRFHeaderButCurlDoesNot() async throws {
        try await withHarness { harness in
            let entry = try harness.put("https://a.example/x.txt", Array("x".utf8))
            // A page on another site posting at loopback: the browser adds Origin, and cannot add the header.
            let crossSite = try harness.request(
                "DELETE", "/cache/\(entry.key.hex)", headers: [("Origin", "https://evil.example")])
            #expect(crossSite.status == 403)
            #expect(try harness.store.entry(for: entry.key) != nil)
            // Reading is not state-changing: GET with Origin is allowed (the browser keeps the answer from
            // another origin's script anyway).
            #expect(try harness.request("GET", "/cache", headers: [("Origin", "https://evil.example")]).status == 200)
            // curl sends no Origin and needs no header.
            #expect(try harness.request("DELETE", "/cache/\(entry.key.hex)").status == 204)
        }
    }

    @Test func logoutEndsTheSessionAndClearsTheCookie() async throws {
        try await withHarness(token: Self.token) { harness in
            let pair = try Self.cookie(try Self.login(harness)).pair
            #expect(try harness.request("POST", "/ui/logout", headers: [("Cookie", pair)], body: "").status == 403)
            #expect(try harness.request("GET", "/cache", headers: [("Cookie", pair)]).status == 200)
            let response = try harness.request(
                "POST", "/ui/logout", headers: [("Cookie", pair), ("X-Larder-CSRF", "1")], body: "")
            #expect(response.status == 204)
            let cleared = try Self.cookie(response)
            #expect(cleared.pair == "larder_session=")
            #expect(cleared.attributes.contains("max-age=0"))
            #expect(try harness.request("GET", "/cache", headers: [("Cookie", pair)]).status == 401)
            #expect(harness.access.sessions?.count == 0)
        }
    }

    @Test(arguments: ["/ui/", "/ui/operator.js", "/ui/entries.js", "/ui/operator.css", "/ui/icon.svg"])
    func pageResponsesCarryAStrictPolicy(path: String) async throws {
        try await withHarness { harness in
            let response = try harness.request("GET", path)
            #expect(response.status == 200)
            let policy = try #require(response.header("Content-Security-Policy"))
            #expect(policy.contains("default-src 'none'"))
            #expect(policy.contains("script-src 'self';"))
            #expect(policy.contains("img-src 'self';"))
            #expect(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval") && !policy.contains("data:"))
            #expect(policy.contains("frame-ancestors 'none'"))
            #expect(response.header("X-Frame-Options") == "DENY")
            #expect(response.header("X-Content-Type-Options") == "nosniff")
        }
    }

    static let files: [(String, String, String)] = [
        ("/ui/operator.js", "text/javascript; charset=utf-8", "use strict"),
        ("/ui/entries.js", "text/javascript; charset=utf-8", "use strict"),
        ("/ui/operator.css", "text/css; charset=utf-8", "{"),
        ("/ui/icon.svg", "image/svg+xml", "<svg"),
    ]

    /// The page's files are served with their own media type, revalidated so that a new build is seen.
    @Test(arguments: files)
    func theFilesAreServedWithTheirTypeAndRevalidated(path: String, contentType: String, sample: String) async throws {
        try await withHarness { harness in
            let response = try harness.request("GET", path)
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == contentType)
            #expect(response.header("Cache-Control") == "no-cache")
            #expect(response.text.contains(sample))
        }
    }

    @Test func thePageHasNoInlineScriptAndSaysItNeedsJavaScript() async throws {
        try await withHarness { harness in
            let page = try harness.request("GET", "/ui/").text
            #expect(page.contains("<noscript>"))
            // Every <script> has a src: the policy would block an inline one, so none may be written.
            let scripts = page.components(separatedBy: "<script").dropFirst()
            #expect(scripts.count == 2)
            #expect(scripts.allSatisfy { $0.hasPrefix(" src=") })
            // No event-handler attribute (onclick=, onload=…): the policy would block those too.
            #expect(page.range(of: #"\son[a-z]+\s*="#, options: .regularExpression) == nil)
            #expect(!page.contains("style="))
            for path in ["/ui/operator.js", "/ui/entries.js"] {
                let script = try harness.request("GET", path).text
                #expect(script.contains("textContent"), "\(path) is not the page's script")
                #expect(
                    !script.contains("innerHTML") && !script.contains("outerHTML")
                        && !script.contains("insertAdjacentHTML"), "\(path) parses HTML")
                #expect(!script.contains("eval(") && !script.contains("document.write"), "\(path) evaluates text")
            }
        }
    }

    @Test func bareUIRedirectsToTheDirectory() async throws {
        try await withHarness { harness in
            let response = try harness.request("GET", "/ui")
            #expect(response.status == 308)
            #expect(response.header("Location") == "/ui/")
        }
    }

    @Test func storedBodiesAreServedInert() async throws {
        try await withHarness { harness in
            // An SVG with a script, stored with the origin's own permissive policy: opened from Larder's
            // origin it must run nothing (sandbox), and never be read as another type (nosniff).
            let svg =
                #"<svg xmlns="http://www.w3.org/2000/svg"><script>fetch('/cache',{method:'DELETE'})</script></svg>"#
            let entry = try harness.put(
                "https://a.example/evil.svg", Array(svg.utf8), contentType: "image/svg+xml",
                extraHeaders: [("Content-Security-Policy", "script-src *")])
            for method in ["GET", "HEAD"] {
                let response = try harness.request(method, "/cache/\(entry.key.hex)")
                #expect(response.status == 200)
                #expect(response.header("Content-Type") == "image/svg+xml")
                let policies = response.headers.filter { $0.name.lowercased() == "content-security-policy" }
                #expect(policies.map(\.value) == ["sandbox; default-src 'none'"])
                #expect(response.header("X-Content-Type-Options") == "nosniff")
                #expect(response.header("Cross-Origin-Resource-Policy") == "same-origin")
            }
            // A range of it too.
            let range = try harness.request("GET", "/cache/\(entry.key.hex)", headers: [("Range", "bytes=0-3")])
            #expect(range.status == 206)
            #expect(range.header("Content-Security-Policy") == "sandbox; default-src 'none'")
        }
    }
}
