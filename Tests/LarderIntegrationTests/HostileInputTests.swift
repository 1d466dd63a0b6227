import Foundation
import HTTPCore
import LarderTesting
import TestSupport
import Testing

/// Hostile input over real sockets against `serve`'s whole wiring, live on 127.0.0.1:0 with a database of
/// its own (`LarderTestApp(serving:)`): control bytes in the `url` parameter and in forwarded header values
/// never reach the origin or the response, `/cache/<key>` takes nothing but a key, the admin endpoints keep
/// their door shut, error bodies escape what the caller sent, and the log lines the `larder` binary writes
/// escape control bytes.
@Suite(.serialized) struct HostileInputTests {
    /// Runs `body` with the port of `serve`'s wiring for these flags and environment, live, on a new database.
    static func serving(
        _ flags: [String: String] = [:], environment: [String: String] = [:], _ body: (Int) async throws -> Void
    ) async throws {
        let directory = StorageTestDirectory()
        let app = try LarderTestApp(serving: flags.merging(["db": directory.file()]) { $1 }, environment: environment)
        try await app.test(.live) { client in try await body(client.port) }
    }

    /// The `url` parameter: every byte but the unreserved ones percent-encoded, so that the text
    /// arrives at the canonicalizer exactly as given.
    static func urlParameter(_ url: String) -> String {
        var out = ""
        for byte in url.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    /// Sends one request that asks to close, and returns everything the server wrote, unparsed.
    static func exchange(_ port: Int, _ request: [UInt8]) throws -> [UInt8] {
        let client = try RawSocketClient(port: port)
        defer { client.close() }
        try client.send(bytes: request)
        return try client.readToEnd()
    }

    /// The header lines of the first response in raw bytes (status line excluded).
    static func headerLines(_ raw: [UInt8]) -> [String] {
        let text = String(decoding: raw, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { return [] }
        return text[..<end.lowerBound].components(separatedBy: "\r\n").dropFirst().map { $0 }
    }

    /// No line of the head was injected, and no byte of it is a bare CR, a bare LF or NUL.
    static func expectCleanHead(_ raw: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let lines = headerLines(raw)
        #expect(!lines.isEmpty, "no response head", sourceLocation: sourceLocation)
        for line in lines {
            #expect(
                !line.lowercased().hasPrefix("x-injected"), "injected header line \(line.debugDescription)",
                sourceLocation: sourceLocation)
            #expect(
                !line.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 },
                "control byte in \(line.debugDescription)",
                sourceLocation: sourceLocation)
            #expect(line.contains(":"), "not a field line: \(line.debugDescription)", sourceLocation: sourceLocation)
        }
    }

    /// Control bytes a caller might smuggle into the URL, as decoded text.
    static let urlPayloads = [
        "/a\r\nX-Injected: 1", "/a\nX-Injected: 1", "/a\rX-Injected: 1", "/a\u{0}b", "/a?q=\r\n\r\nHTTP/1.1 200 OK",
        "/a\u{1B}[31m", "/a b",
    ]

    // The payloads of a test share one server.
    @Test func controlBytesInTheURLParameterAreRefusedBeforeTheOrigin() async throws {
        let origin = try StubOrigin()
        origin.respond(to: "/a", with: .ok("origin body"))
        try await Self.serving(["allow-network": "127.0.0.0/8"]) { port in
            for payload in Self.urlPayloads {
                let query = Self.urlParameter(origin.url(payload))
                let raw = try Self.exchange(
                    port, Array("GET /fetch?url=\(query) HTTP/1.1\r\nHost: larder\r\nConnection: close\r\n\r\n".utf8)
                )
                let text = String(decoding: raw, as: UTF8.self)
                #expect(text.hasPrefix("HTTP/1.1 400 "), "\(payload.debugDescription): \(text)")
                #expect(text.contains("Content-Type: application/problem+json"))
                Self.expectCleanHead(raw)
            }
            #expect(origin.requestCount == 0, "the origin was asked for \(origin.requests.map(\.target))")
        }
    }

    @Test func rawControlBytesInTheRequestLineAreRefusedBeforeTheOrigin() async throws {
        let origin = try StubOrigin()
        origin.respond(to: "/a", with: .ok("origin body"))
        try await Self.serving(["allow-network": "127.0.0.0/8"]) { port in
            for target in [
                "/fetch?url=\(origin.url("/a"))\rX-Injected: 1", "/fetch?url=\(origin.url("/a"))\u{0}",
                "/fetch?url=\(origin.url("/a\u{1B}"))",
            ] {
                let raw = try Self.exchange(port, Array("GET \(target) HTTP/1.1\r\nHost: larder\r\n\r\n".utf8))
                #expect(String(decoding: raw, as: UTF8.self).hasPrefix("HTTP/1.1 400 "), "\(target.debugDescription)")
                Self.expectCleanHead(raw)
            }
            #expect(origin.requestCount == 0)
        }
    }

    @Test func percentEncodedControlBytesReachTheOriginStillEncoded() async throws {
        let origin = try StubOrigin()
        origin.respond(to: "/a%0D%0AX-Injected:%201%00", with: .ok("origin body"))
        try await Self.serving(["allow-network": "127.0.0.0/8"]) { port in
            // `%0d%0a` inside the URL (so `%250d%250a` in the parameter): a path the origin may serve.
            let query = Self.urlParameter(origin.url("/a%0d%0aX-Injected:%201%00"))
            let raw = try Self.exchange(
                port, Array("GET /fetch?url=\(query) HTTP/1.1\r\nHost: larder\r\nConnection: close\r\n\r\n".utf8))
            #expect(String(decoding: raw, as: UTF8.self).hasPrefix("HTTP/1.1 200 "))
            Self.expectCleanHead(raw)
            let received = try #require(origin.lastRequest)
            #expect(received.target == "/a%0D%0AX-Injected:%201%00")
            #expect(!received.headers.contains("X-Injected"))
        }
    }

    /// Header values with control bytes, raw on the wire, on a request that would be forwarded.
    static let headerPayloads: [[UInt8]] = [
        Array("X-Custom: a\rX-Injected: 1\r\n".utf8), Array("X-Custom: a\nX-Injected: 1\r\n".utf8),
        Array("X-Custom: a\u{0}b\r\n".utf8), Array("X-Custom: a\r\n X-Injected: 1\r\n".utf8),
        Array("X-Custom: a\r\n\tX-Injected: 1\r\n".utf8), Array("X-Custom: \u{1B}[2J\r\n".utf8),
        Array("X-Custom: a\u{7F}\r\n".utf8),
    ]

    @Test func controlBytesInForwardedHeadersNeverReachTheOrigin() async throws {
        let origin = try StubOrigin()
        origin.respond(to: "/h", with: .ok("origin body").header("Cache-Control", "no-store"))
        try await Self.serving(["allow-network": "127.0.0.0/8"]) { port in
            let head =
                "GET /fetch?url=\(Self.urlParameter(origin.url("/h"))) HTTP/1.1\r\nHost: larder\r\nConnection: close\r\n"
            for field in Self.headerPayloads {
                let before = origin.requestCount
                let raw = try Self.exchange(port, Array(head.utf8) + field + Array("\r\n".utf8))
                let text = String(decoding: raw, as: UTF8.self)
                // Refusing the request is the expected answer; forwarding a cleaned value would be acceptable.
                #expect(text.hasPrefix("HTTP/1.1 400 ") || text.hasPrefix("HTTP/1.1 200 "), "\(text)")
                Self.expectCleanHead(raw)
                if text.hasPrefix("HTTP/1.1 400 ") { #expect(origin.requestCount == before) }
            }
            for request in origin.requests {
                #expect(!request.headers.contains("X-Injected"))
                for header in request.headers {
                    #expect(
                        !header.value.utf8.contains { $0 < 0x20 && $0 != 0x09 || $0 == 0x7F },
                        "\(header.name): \(header.value.debugDescription)")
                }
            }
        }
    }

    /// Path segments under `/cache/` that are not a cache key: traversal, encoded slashes, wrong case
    /// or length, NUL.
    static let badKeys: [String] = {
        let key = String(repeating: "0f", count: 32)
        return [
            "..", "%2e%2e", "%2E%2E", ".", "%2e%2e%2f%2e%2e%2fetc%2fpasswd", "..%2F..%2Fetc%2Fpasswd", "%2F",
            "%2f\(key)", "\(key)%2F", "\(key)%2f..", key.uppercased(), String(key.dropLast()), key + "0",
            String(key.dropLast()) + "g", "\(key)%00", "%00", "\(key.prefix(32))%2F\(key.prefix(31))",
        ]
    }()

    @Test func cachePathsThatAreNotAKeyAreInvalidKeyProblems() async throws {
        try await Self.serving { port in
            for segment in Self.badKeys {
                try Self.expectInvalidKey(port, segment)
            }
            // A valid key that names no entry is an ordinary 404.
            let key = String(repeating: "0f", count: 32)
            let raw = try Self.exchange(
                port, Array("GET /cache/\(key) HTTP/1.1\r\nHost: larder\r\nConnection: close\r\n\r\n".utf8))
            #expect(String(decoding: raw, as: UTF8.self).hasPrefix("HTTP/1.1 404 "))
            // Raw dot segments and empty segments around a key reach no other route and no entry.
            for path in [
                "/cache/../filters", "/cache/%2e%2e/filters", "/cache/\(key)/../\(key)", "/cache//\(key)",
                "/cache/\(key)/meta/..", "/cache/\(key)/./meta", "/cache/./\(key)", "/cache/\(key)/..",
                "/cache/\(key)/meta/x",
            ] {
                let raw = try Self.exchange(
                    port, Array("GET \(path) HTTP/1.1\r\nHost: larder\r\nConnection: close\r\n\r\n".utf8))
                let text = String(decoding: raw, as: UTF8.self)
                #expect(
                    text.hasPrefix("HTTP/1.1 400 ") || text.hasPrefix("HTTP/1.1 404 "), "\(path): \(text.prefix(200))")
                #expect(text.contains("Content-Type: application/problem+json"), "\(path)")
            }
        }
    }

    /// Every method on `/cache/<segment>` and its `/meta` answers the invalid-key problem.
    static func expectInvalidKey(_ port: Int, _ segment: String) throws {
        for (method, suffix) in [("GET", ""), ("DELETE", ""), ("GET", "/meta"), ("HEAD", "")] {
            let raw = try Self.exchange(
                port,
                Array("\(method) /cache/\(segment)\(suffix) HTTP/1.1\r\nHost: larder\r\nConnection: close\r\n\r\n".utf8)
            )
            let text = String(decoding: raw, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 400 "), "\(method) /cache/\(segment)\(suffix): \(text.prefix(200))")
            #expect(text.contains("Content-Type: application/problem+json"))
            if method != "HEAD" {
                #expect(text.contains(#""type":"https://larder.dev/problems/invalid-key""#), "\(text)")
            }
        }
    }

    static let adminPaths = [
        "/cache", "/filters", "/fetches", "/cache/" + String(repeating: "0f", count: 32) + "/meta",
    ]

    /// Authorization fields that must not open the admin API when the token is `s3cret-token`.
    static let refusedCredentials: [String?] = [
        nil, "Bearer", "Bearer ", "Bearer s3cret-toke", "Bearer s3cret-tokenX", "Bearer S3CRET-TOKEN",
        "Bearer x3cret-token", "Bearer s3cret-tokem", "Basic czNjcmV0LXRva2Vu", "s3cret-token",
        "Bearer s3cret-token s3cret-token", "Bearer \"s3cret-token\"",
    ]

    @Test func adminEndpointsRefuseEveryCredentialButTheToken() async throws {
        try await Self.serving(environment: ["LARDER_ADMIN_TOKEN": "s3cret-token"]) { port in
            for path in Self.adminPaths {
                for credentials in Self.refusedCredentials {
                    let field = credentials.map { "Authorization: \($0)\r\n" } ?? ""
                    let raw = try Self.exchange(
                        port, Array("GET \(path) HTTP/1.1\r\nHost: larder\r\n\(field)Connection: close\r\n\r\n".utf8)
                    )
                    let text = String(decoding: raw, as: UTF8.self)
                    #expect(
                        text.hasPrefix("HTTP/1.1 401 ") || text.hasPrefix("HTTP/1.1 400 "),
                        "\(path) with \(String(describing: credentials)): \(text.prefix(120))")
                    #expect(text.contains("WWW-Authenticate: Bearer"))
                }
                // The token in the query string is not a credential.
                let raw = try Self.exchange(
                    port,
                    Array(
                        "GET \(path)?access_token=s3cret-token HTTP/1.1\r\nHost: larder\r\nConnection: close\r\n\r\n"
                            .utf8))
                #expect(String(decoding: raw, as: UTF8.self).hasPrefix("HTTP/1.1 4"))
                // Two Authorization fields, one of them right, are refused too.
                let twice = try Self.exchange(
                    port,
                    Array(
                        ("GET \(path) HTTP/1.1\r\nHost: larder\r\nAuthorization: Bearer wrong\r\n"
                            + "Authorization: Bearer s3cret-token\r\nConnection: close\r\n\r\n").utf8))
                #expect(String(decoding: twice, as: UTF8.self).hasPrefix("HTTP/1.1 400 "))
            }
            for path in Self.adminPaths {
                let raw = try Self.exchange(
                    port,
                    Array(
                        "GET \(path) HTTP/1.1\r\nHost: larder\r\nAuthorization: bearer s3cret-token\r\nConnection: close\r\n\r\n"
                            .utf8))
                let text = String(decoding: raw, as: UTF8.self)
                #expect(
                    text.hasPrefix("HTTP/1.1 200 ") || text.hasPrefix("HTTP/1.1 404 "), "\(path): \(text.prefix(120))")
            }
        }
    }

    /// Inputs that end up in an error body: markup, quotes, backslashes, control bytes, non-ASCII.
    static let echoedInputs = [
        "<script>alert(\"x\")</script>", "a\"b\\c", "'; DROP TABLE entries; --", "\u{1}\u{1B}[31m\u{7F}",
        "caf\u{E9}\u{2028}",
    ]

    @Test func errorBodiesAreValidJSONThatEscapesTheInput() async throws {
        try await Self.serving { port in
            for input in Self.echoedInputs {
                try Self.expectEscapedErrors(port, input)
            }
        }
    }

    /// Sends the input to every endpoint that may echo it in an error.
    static func expectEscapedErrors(_ port: Int, _ input: String) throws {
        let targets = [
            "/fetch?url=\(Self.urlParameter(input))", "/fetch?url=\(Self.urlParameter("http://" + input))",
            "/fetch?url=\(Self.urlParameter("https://example.com/" + input))&url=2",
            "/cache/\(Self.urlParameter(input))", "/cache?limit=\(Self.urlParameter(input))",
            "/filters/explain?url=\(Self.urlParameter(input))",
        ]
        for target in targets {
            let raw = try Self.exchange(
                port, Array("GET \(target) HTTP/1.1\r\nHost: larder\r\nConnection: close\r\n\r\n".utf8))
            let text = String(decoding: raw, as: UTF8.self)
            guard let split = text.range(of: "\r\n\r\n") else {
                Issue.record("no response to \(target)")
                continue
            }
            #expect(text.hasPrefix("HTTP/1.1 4"), "\(target): \(text.prefix(200))")
            #expect(text.contains("Content-Type: application/problem+json"), "\(target)")
            Self.expectCleanHead(raw)
            let body = Data(text[split.upperBound...].utf8)
            #expect(!body.contains { $0 < 0x20 || $0 == 0x7F }, "raw control byte in the body of \(target)")
            let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any]
            #expect(object != nil, "not a JSON object: \(String(decoding: body, as: UTF8.self))")
            // Quotes the input held are escaped wherever it is echoed: never `("x")` raw in the body.
            #expect(!String(decoding: body, as: UTF8.self).contains(#"("x")"#))
        }
    }

    /// On the binary: the lines checked are the bytes `serve`'s own log handler (`LineLogHandler`, in the
    /// executable, which escapes each whole line) writes to the process's standard output; in process the
    /// test's logger would stand in for it and the escaping under test would not run.
    @Test func accessLogLinesEscapeControlBytes() async throws {
        let larder = try await LarderProcess.start(arguments: ["--access-log", "true", "--log-format", "text"])
        let requests: [[UInt8]] = [
            Array("GET /healthz?\u{1B}[31mred\u{1B}[0m HTTP/1.1\r\nHost: larder\r\nConnection: close\r\n\r\n".utf8),
            Array("GET /\u{1B}]0;owned\u{7} HTTP/1.1\r\nHost: larder\r\nConnection: close\r\n\r\n".utf8),
            Array("GET /a\rforged 200 HTTP/1.1\r\nHost: larder\r\nConnection: close\r\n\r\n".utf8),
            Array("GET /a\nforged HTTP/1.1\r\nHost: larder\r\nConnection: close\r\n\r\n".utf8),
            Array("GET /healthz?%1b%0d%0a HTTP/1.1\r\nHost: larder\r\nConnection: close\r\n\r\n".utf8),
            Array("GET /caf\u{E9}\u{85} HTTP/1.1\r\nHost: larder\r\nConnection: close\r\n\r\n".utf8),
        ]
        for request in requests { _ = try Self.exchange(larder.port, request) }
        let found = await waitUntil(timeout: .seconds(5)) {
            String(decoding: larder.logBytes, as: UTF8.self).contains("/healthz?%1b%0d%0a")
        }
        #expect(found, "the last request was not logged")
        let log = larder.logBytes
        // Only the line feeds that end lines: no ESC, BEL, CR, DEL or stray LF inside a line.
        #expect(!log.contains { ($0 < 0x20 && $0 != 0x0A) || $0 == 0x7F }, "\(String(decoding: log, as: UTF8.self))")
        let lines = String(decoding: log, as: UTF8.self).split(separator: "\n")
        #expect(!lines.contains { $0.hasPrefix("forged") })
        for line in lines { #expect(line.first?.isNumber == true, "a line that is not a log event: \(line)") }
    }
}
