import CacheCore
import Foundation
import LarderAPI
import LarderTesting
import Storage
import TestSupport
import Testing

struct CacheBodyHandlerTests {
    /// Five and a half chunks of text (stored deflated) and of random bytes (stored as they came).
    static let text = CacheCoreFixtures.compressibleBody(length: 5 * CacheAPIHarness.chunkSize + 2000, seed: 3)
    static let noise = CacheCoreFixtures.randomBody(length: 5 * CacheAPIHarness.chunkSize + 2000, seed: 4)

    @Test(arguments: [false, true])
    func getSendsTheStoredBodyByteForByteWithItsHeaders(compressible: Bool) async throws {
        try await withHarness { harness in
            let body = compressible ? Self.text : Self.noise
            let entry = try harness.put(
                "https://a.example/body", body, contentType: compressible ? "text/plain" : "application/octet-stream",
                extraHeaders: [("ETag", "\"e1\""), ("X-Origin", "kept")])
            #expect(entry.codec == (compressible ? .deflateChunked : .identity))
            let response = try harness.request("GET", "/cache/\(entry.key.hex)")
            #expect(response.status == 200)
            #expect(sameBytes(response.body, body))
            #expect(response.header("Content-Length") == String(body.count))
            #expect(response.header("ETag") == "\"e1\"")
            #expect(response.header("X-Origin") == "kept")
            #expect(response.header("Content-Encoding") == nil)
            #expect(response.header("Vary") == (compressible ? "Accept-Encoding" : nil))
        }
    }

    @Test func aGzipCallerGetsTheStoredGzipThatDecompressesToTheBody() async throws {
        try await withHarness { harness in
            let entry = try harness.put("https://a.example/gz", Self.text, extraHeaders: [("ETag", "\"e1\"")])
            let response = try harness.request("GET", "/cache/\(entry.key.hex)", headers: [("Accept-Encoding", "gzip")])
            #expect(response.status == 200)
            #expect(response.header("Content-Encoding") == "gzip")
            #expect(response.header("Vary") == "Accept-Encoding")
            #expect(response.header("ETag") == "W/\"e1\"")
            #expect(response.body.count < Self.text.count / 2)
            #expect(try sameBytes(gunzip(response.body), Self.text))
        }
    }

    @Test(arguments: [false, true])
    func headHasTheHeadersOfGetAndNoBody(gzip: Bool) async throws {
        try await withHarness(mode: .live) { harness in
            let entry = try harness.put("https://a.example/head", Self.text)
            let headers = gzip ? [("Accept-Encoding", "gzip")] : []
            let get = try harness.request("GET", "/cache/\(entry.key.hex)", headers: headers)
            let head = try harness.request("HEAD", "/cache/\(entry.key.hex)", headers: headers)
            #expect(head.status == 200)
            #expect(get.header("Content-Length") == String(get.body.count))
            for name in ["Content-Length", "Content-Type", "Content-Encoding", "Vary", "Accept-Ranges", "ETag"] {
                #expect(head.header(name) == get.header(name), "\(name)")
            }
            // Nothing follows the head before the server closes (the request said Connection: close).
            let raw = try harness.open("HEAD", "/cache/\(entry.key.hex)")
            let text = String(decoding: try raw.readToEnd(), as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 200"))
            #expect(text.hasSuffix("\r\n\r\n"))
            #expect(text.components(separatedBy: "\r\n\r\n").count == 2)
        }
    }

    @Test(
        arguments: [
            ("bytes=0-0", 0..<1), ("bytes=0-4095", 0..<4096), ("bytes=4095-4096", 4095..<4097),
            ("bytes=10000-17000", 10000..<17001), ("bytes=20000-", 20000..<22480), ("bytes=-100", 22380..<22480),
            ("bytes=-999999", 0..<22480),
        ] as [(String, Range<Int>)])
    func aRangeIs206WithExactlyThoseBytes(_ field: String, _ expected: Range<Int>) async throws {
        try await withHarness { harness in
            for body in [Self.text, Self.noise] {
                let entry = try harness.put("https://a.example/range/\(body[0])", body)
                let response = try harness.request(
                    "GET", "/cache/\(entry.key.hex)", headers: [("Range", field), ("Accept-Encoding", "gzip")])
                #expect(response.status == 206)
                #expect(
                    response.header("Content-Range")
                        == "bytes \(expected.lowerBound)-\(expected.upperBound - 1)/\(body.count)")
                #expect(response.header("Content-Encoding") == nil)
                #expect(sameBytes(response.body, Array(body[expected])))
            }
        }
    }

    @Test func anUnsatisfiableRangeIs416WithTheCompleteLength() async throws {
        try await withHarness { harness in
            let entry = try harness.put("https://a.example/416", Self.noise)
            let response = try harness.request("GET", "/cache/\(entry.key.hex)", headers: [("Range", "bytes=22480-")])
            #expect(response.status == 416)
            #expect(response.header("Content-Range") == "bytes */22480")
            #expect(response.text.contains(ProblemType.rangeNotSatisfiable.uri))
        }
    }

    @Test func severalRangesGetTheWholeBody() async throws {
        try await withHarness { harness in
            let entry = try harness.put("https://a.example/multi", Self.noise)
            let response = try harness.request(
                "GET", "/cache/\(entry.key.hex)", headers: [("Range", "bytes=0-9,100-109")])
            #expect(response.status == 200)
            #expect(sameBytes(response.body, Self.noise))
        }
    }

    @Test func anEmptyBodyIsServedEmpty() async throws {
        try await withHarness { harness in
            let entry = try harness.put("https://a.example/empty", [])
            let response = try harness.request("GET", "/cache/\(entry.key.hex)")
            #expect(response.status == 200)
            #expect(response.body.isEmpty)
            #expect(response.header("Content-Length") == "0")
        }
    }

    @Test(arguments: [false, true])
    func aCorruptBodyAbortsTheConnectionMidBodyAndIsDeleted(compressible: Bool) async throws {
        try await withHarness(mode: .live) { harness in
            let body = compressible ? Self.text : Self.noise
            let entry = try harness.put("https://a.example/corrupt", body)
            try harness.damageChunk(of: entry, sequence: 3)
            let client = try harness.open("GET", "/cache/\(entry.key.hex)")
            #expect(throws: RawSocketError.self) { try client.readResponse() }
            #expect(try harness.store.entry(for: entry.key) == nil)
            #expect(harness.bodyFailures.keys == [entry.key])
            #expect(try harness.request("GET", "/cache/\(entry.key.hex)").status == 404)
        }
    }

    @Test func aCorruptFirstChunkIsFoundBeforeAnyByteIsSentAndAnswers404() async throws {
        try await withHarness { harness in
            let entry = try harness.put("https://a.example/corrupt-first", Self.noise)
            try harness.damageChunk(of: entry, sequence: 0)
            let response = try harness.request("GET", "/cache/\(entry.key.hex)")
            #expect(response.status == 404)
            #expect(response.header("Content-Type") == "application/problem+json")
            #expect(try harness.store.entry(for: entry.key) == nil)
        }
    }

    @Test func theAbortHappensAfterSomeBytesWereSent() async throws {
        try await withHarness(mode: .live) { harness in
            let entry = try harness.put("https://a.example/partial", Self.noise)
            try harness.damageChunk(of: entry, sequence: 4)
            let client = try harness.open("GET", "/cache/\(entry.key.hex)")
            let received = try client.readToEnd()
            let text = String(decoding: received, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 200"))
            #expect(text.contains("Content-Length: 22480"))
            let headEnd = try #require(text.range(of: "\r\n\r\n"))
            let bodyBytes = received.count - text.utf8.distance(from: text.startIndex, to: headEnd.upperBound)
            #expect(bodyBytes >= 4 * CacheAPIHarness.chunkSize)
            #expect(bodyBytes < Self.noise.count)
        }
    }

    @Test(arguments: [
        "abc", String(repeating: "g", count: 64), String(repeating: "a", count: 63), String(repeating: "a", count: 65),
    ])
    func aKeyThatIsNot64HexDigitsIs400(_ key: String) async throws {
        try await withHarness { harness in
            for path in ["/cache/\(key)", "/cache/\(key)/meta"] {
                let response = try harness.request("GET", path)
                #expect(response.status == 400)
                #expect(response.text.contains(ProblemType.invalidKey.uri))
            }
            #expect(try harness.request("DELETE", "/cache/\(key)").status == 400)
        }
    }

    @Test func anUnknownKeyIs404() async throws {
        try await withHarness { harness in
            let key = CacheKey.make(canonicalURL: "https://never.example/")
            for method in ["GET", "DELETE"] {
                let response = try harness.request(method, "/cache/\(key.hex)")
                #expect(response.status == 404)
                #expect(response.header("Content-Type") == "application/problem+json")
            }
            // Only the lower-case spelling names an entry.
            #expect(try harness.request("GET", "/cache/\(key.hex.uppercased())/meta").status == 400)
        }
    }
}
