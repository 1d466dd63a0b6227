import Foundation
import TestSupport
import Testing

/// Scoped admin tokens and the audit trail on the real binary: a read token is refused on every write
/// route of `openapi.yaml` and changes nothing; a full token changes things, and each change is logged at
/// info with who, what and how many, in the text and the JSON log formats.
@Suite(.serialized) struct AdminScopeProcessTests {
    static let readToken = "viewer-secret-0001"
    static let fullToken = "ops-secret-0001"
    static let aKey = String(repeating: "ab", count: 32)
    static let filter = #"{"name":"extra","match":{"hosts":["example.com"]}}"#

    /// Every state-changing admin operation: method, target, body.
    static let writes: [(method: String, target: String, body: String?)] = [
        ("DELETE", "/cache", nil), ("DELETE", "/cache?host=example.com", nil), ("DELETE", "/cache/\(aKey)", nil),
        ("PUT", "/filters", #"{"filters":[]}"#), ("POST", "/filters", filter), ("DELETE", "/filters", nil),
        ("POST", "/filters/defaults", nil), ("PUT", "/filters/extra", filter), ("DELETE", "/filters/images", nil),
    ]

    static func start(format: String = "json", extra: [String] = []) async throws -> LarderProcess {
        try await LarderProcess.start(
            arguments: [
                "--admin-read-token", "viewer=\(readToken)", "--admin-full-token", "ops=\(fullToken)", "--log-format",
                format,
            ] + extra)
    }

    static func send(
        _ larder: LarderProcess, _ write: (method: String, target: String, body: String?), token: String
    ) throws -> RawHTTPResponse {
        var headers = ["Authorization: Bearer \(token)"]
        if write.body != nil { headers.append("Content-Type: application/json") }
        return try larder.request(write.method, write.target, headers: headers, body: write.body)
    }

    @Test func theWritesListedAreEveryStateChangingAdminOperationOfTheContract() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("openapi.yaml"), encoding: .utf8)
        var operations = Set<String>()
        var path = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("  /"), line.hasSuffix(":") { path = String(line.dropFirst(2).dropLast()) }
            for method in ["put", "post", "delete", "patch"] where line == "    \(method):" {
                if !path.hasPrefix("/ui/log") && path != "/fetch" {
                    operations.insert("\(method.uppercased()) \(path)")
                }
            }
        }
        let listed = Set(
            Self.writes.map { write in
                let path = String(write.target.split(separator: "?")[0])
                    .replacingOccurrences(of: Self.aKey, with: "{key}")
                    .replacingOccurrences(of: "/filters/extra", with: "/filters/{name}")
                    .replacingOccurrences(of: "/filters/images", with: "/filters/{name}")
                return "\(write.method) \(path)"
            })
        #expect(listed == operations)
    }

    @Test func aReadTokenIsRefusedOnEveryWriteRouteAndChangesNothing() async throws {
        let larder = try await Self.start()
        defer { larder.stop() }
        for write in Self.writes {
            let refused = try Self.send(larder, write, token: Self.readToken)
            #expect(refused.status == 403, "\(write.method) \(write.target)")
            #expect(refused.text.contains(#""type":"https://larder.dev/problems/insufficient-scope""#))
            #expect(refused.header("WWW-Authenticate")?.contains(#"error="insufficient_scope""#) == true)
        }
        let chain = try larder.request("GET", "/filters", headers: ["Authorization: Bearer \(Self.readToken)"])
        #expect(chain.status == 200)
        #expect(chain.header("ETag") == #""1""#, "no change went through")
        #expect(!larder.logText.contains("audit"), "refused requests change nothing and are not audited")
        for read in [
            "/cache", "/filters", "/filters/images", "/fetches", "/ui/",
            "/filters/explain?url=http%3A%2F%2Fexample.com%2F",
        ] {
            let response = try larder.request("GET", read, headers: ["Authorization: Bearer \(Self.readToken)"])
            #expect(response.status == 200, "\(read)")
        }
        let meta = try larder.request(
            "GET", "/cache/\(Self.aKey)/meta", headers: ["Authorization: Bearer \(Self.readToken)"])
        #expect(meta.status == 404)
    }

    @Test(arguments: ["json", "text"]) func everyChangeIsAuditedWithWhoWhatAndHowMany(format: String) async throws {
        let larder = try await Self.start(format: format)
        defer { larder.stop() }
        for write in Self.writes {
            let response = try Self.send(larder, write, token: Self.fullToken)
            #expect(response.status < 500, "\(write.method) \(write.target): \(response.status)")
        }
        // An unauthenticated loopback client is not an admin while tokens are configured: nothing logged for it.
        let anonymous = try larder.request("DELETE", "/cache")
        #expect(anonymous.status == 401)
        let lines = larder.logText.split(separator: "\n").filter { $0.contains("audit") }
        #expect(lines.count == Self.writes.count, "\(lines)")
        if format == "json" {
            let events = try lines.map {
                try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
            for (event, write) in zip(events, Self.writes) {
                #expect(event["level"] as? String == "info")
                #expect(event["who"] as? String == "ops")
                #expect(event["via"] as? String == "token")
                #expect(event["method"] as? String == write.method)
                #expect(event["target"] as? String == write.target)
            }
            #expect(events[0]["entries"] as? String == "0")
            #expect(events[2]["entries"] as? String == "0", "DELETE of a missing key removed nothing")
            #expect(events[3]["filters"] as? String == "0")
            #expect(events[3]["chainVersion"] as? String == "2")
            #expect(events[4]["filters"] as? String == "1")
        } else {
            #expect(lines[0].contains("audit: ops DELETE /cache: 200, 0 entries"), "\(lines[0])")
            #expect(lines[3].contains("audit: ops PUT /filters: 200, chain version 2 with 0 filters"), "\(lines[3])")
            #expect(lines[4].contains("who=ops"), "\(lines[4])")
        }
    }
}
