import HTTPCore
import Testing

/// The request line (RFC 9112 §3), each case fed whole, byte by byte and in pieces.
@Suite struct HTTPRequestParserRequestLineTests {
    struct GoodLine: Sendable, CustomTestStringConvertible {
        var line: String
        var method: String
        var path: String
        var query: String?
        var version: HTTPVersion
        var testDescription: String { line.debugDescription }
    }

    static let goodLines: [GoodLine] = [
        GoodLine(line: "GET / HTTP/1.1", method: "GET", path: "/", query: nil, version: .http1_1),
        GoodLine(line: "HEAD /a/b HTTP/1.1", method: "HEAD", path: "/a/b", query: nil, version: .http1_1),
        GoodLine(line: "GET /x HTTP/1.0", method: "GET", path: "/x", query: nil, version: .http1_0),
        GoodLine(
            line: "GET /fetch?url=http%3A%2F%2Fa.test%2F HTTP/1.1", method: "GET", path: "/fetch",
            query: "url=http%3A%2F%2Fa.test%2F", version: .http1_1),
        GoodLine(line: "GET /p?a=1&b=/c?d HTTP/1.1", method: "GET", path: "/p", query: "a=1&b=/c?d", version: .http1_1),
        GoodLine(
            line: "GET /a:b@c!$&'()*+,;=-._~ HTTP/1.1", method: "GET", path: "/a:b@c!$&'()*+,;=-._~", query: nil,
            version: .http1_1),
        GoodLine(line: "GET /? HTTP/1.1", method: "GET", path: "/", query: "", version: .http1_1),
        GoodLine(line: "PURGE /x HTTP/1.1", method: "PURGE", path: "/x", query: nil, version: .http1_1),
        GoodLine(line: "M-SEARCH! /x HTTP/1.1", method: "M-SEARCH!", path: "/x", query: nil, version: .http1_1),
        GoodLine(line: "OPTIONS * HTTP/1.1", method: "OPTIONS", path: "*", query: nil, version: .http1_1),
        GoodLine(line: "GET //double HTTP/1.1", method: "GET", path: "//double", query: nil, version: .http1_1),
    ]

    @Test(arguments: goodLines)
    func wellFormedRequestLineIsAccepted(_ good: GoodLine) throws {
        let outcome = parse(head(good.line, "Host: h.test"))
        #expect(outcome.failure == nil)
        let request = try #require(outcome.requests.first)
        #expect(outcome.requests.count == 1)
        #expect(request.method.rawValue == good.method)
        #expect(request.path == good.path)
        #expect(request.query == good.query)
        #expect(request.version == good.version)
        #expect(request.target == String(good.line.split(separator: " ")[1]))
    }

    static let badLines: [(String, Int)] = [
        ("GET  / HTTP/1.1", 400),  // two spaces
        ("GET / HTTP/1.1 ", 400),  // trailing space
        ("GET /  HTTP/1.1", 400),
        (" GET / HTTP/1.1", 400),  // no method
        ("GET\t/ HTTP/1.1", 400),  // tab is not a separator
        ("GET / HTTP/1.1\t", 400),
        ("G(T / HTTP/1.1", 400),
        ("GET", 400),
        ("GET /", 400),  // HTTP/0.9 style
        ("GET / ", 400),
        ("GET / HTTP", 400),
        ("GET / http/1.1", 400),
        ("GET / HTTP/1.10", 400),
        ("GET / HTTP/11", 400),
        ("GET / HTTP/1.", 400),
        ("GET / HTTP/a.b", 400),
        ("GET / HTTPS/1.1", 400),
        ("GET / HTTP/2.0", 505),
        ("GET / HTTP/0.9", 505),
        ("GET / HTTP/1.2", 505),
        ("GET / HTTP/3.0", 505),
        ("GET / HTTP/9.9", 505),
        ("GET * HTTP/1.1", 400),  // asterisk-form is for OPTIONS only
        ("OPTIONS ** HTTP/1.1", 400),
        ("CONNECT a.test:443 HTTP/1.1", 501),
        ("GET a.test:80 HTTP/1.1", 400),  // authority-form is for CONNECT only
        ("GET a.test/x HTTP/1.1", 400),
        ("GET ftp://a.test/ HTTP/1.1", 400),
        ("GET http:/a.test HTTP/1.1", 400),
        ("GET http:// HTTP/1.1", 400),
        ("GET http:///x HTTP/1.1", 400),
        ("GET http://user@a.test/ HTTP/1.1", 400),  // userinfo
        ("GET http://a.test:x/ HTTP/1.1", 400),
        ("GET http://a b/ HTTP/1.1", 400),
        ("GET /a b HTTP/1.1", 400),
        ("GET /a%zz HTTP/1.1", 400),
        ("GET /a% HTTP/1.1", 400),
        ("GET /a%4 HTTP/1.1", 400),
        ("GET /a#frag HTTP/1.1", 400),
        ("GET /a\"b HTTP/1.1", 400),
        ("GET /a<b> HTTP/1.1", 400),
        ("GET /a\\b HTTP/1.1", 400),
        ("GET /a|b HTTP/1.1", 400),
        ("GET /?q={x} HTTP/1.1", 400),
        ("GET /é HTTP/1.1", 400),  // raw non-ASCII
        ("GET /a\u{0}b HTTP/1.1", 400),
        ("GET /a\u{7F} HTTP/1.1", 400),
        ("GET / HTTP/1.1\rX", 400),  // bare CR inside the line
        ("\u{16}\u{03}\u{01}\u{02}\u{00}\u{01}", 400),  // a TLS ClientHello
    ]

    @Test(arguments: badLines)
    func malformedRequestLineIsRejected(line: String, status: Int) {
        let outcome = parse(head(line, "Host: h.test"))
        #expect(outcome.requests.isEmpty)
        #expect(outcome.failureCode == status, "\(outcome.failure?.reason ?? "no failure")")
    }

    @Test func tlsHandshakeIsRefusedAtItsFirstByte() {
        var parser = HTTPRequestParser()
        parser.append(contentsOf: [0x16])
        #expect(parser.next() == .failure(HTTPParseError(status: .badRequest, reason: "invalid character in method")))
    }

    @Test func requestLineEndingInBareLFIsRejected() {
        #expect(parse("GET / HTTP/1.1\nHost: h\r\n\r\n").failureCode == 400)
        #expect(parse("GET / HTTP/1.1\r\nHost: h\r\n\n").failureCode == 400)
    }

    @Test(arguments: [0, 1, 4])
    func fewEmptyLinesBeforeRequestLineAreSkipped(count: Int) {
        let text = String(repeating: "\r\n", count: count) + head("GET / HTTP/1.1", "Host: h")
        #expect(parse(text).requests.count == 1)
    }

    @Test func fifthEmptyLineBeforeRequestLineIsRejected() {
        let text = String(repeating: "\r\n", count: 5) + head("GET / HTTP/1.1", "Host: h")
        #expect(parse(text).failureCode == 400)
        let relaxed = HTTPParserLimits(maxEmptyLinesBeforeRequest: 5)
        #expect(parse(text, limits: relaxed).requests.count == 1)
    }

    @Test(arguments: ["\n", "\r\n", "\n\r\n", "\r\n\n\n\n"])
    func bareLFAndCRLFEmptyLinesBeforeRequestLineAreSkipped(prefix: String) {
        let outcome = parse(prefix + head("GET /x HTTP/1.1", "Host: h"))
        #expect(outcome.failure == nil)
        #expect(outcome.requests.map(\.path) == ["/x"])
    }

    @Test func emptyLinesLeftAfterABodyDoNotBreakThePipeline() {
        let text =
            head("POST /a HTTP/1.1", "Host: h", "Content-Length: 2", body: "ab") + "\n"
            + head("GET /b HTTP/1.1", "Host: h") + "\r\n" + head("GET /c HTTP/1.1", "Host: h")
        let outcome = parse(text)
        #expect(outcome.failure == nil)
        #expect(outcome.requests.map(\.path) == ["/a", "/b", "/c"])
    }

    @Test func bareLFEmptyLinesCountTowardsTheLimit() {
        #expect(parse(String(repeating: "\n", count: 5) + head("GET / HTTP/1.1", "Host: h")).failureCode == 400)
        #expect(parse("\r \n" + head("GET / HTTP/1.1", "Host: h")).failureCode == 400)
    }

    static let absoluteForms: [(String, String, String, String?)] = [
        ("http://other.test:8080/p?q=1", "other.test:8080", "/p", "q=1"),
        ("HTTP://Other.Test/a/b", "Other.Test", "/a/b", nil),
        ("https://x.test", "x.test", "/", nil),
        ("http://x.test?y=2", "x.test", "/", "y=2"),
        ("http://[::1]:81/", "[::1]:81", "/", nil),
        ("http://10.0.0.1/%41", "10.0.0.1", "/%41", nil),
    ]

    @Test(arguments: absoluteForms)
    func absoluteFormAuthorityReplacesHost(target: String, host: String, path: String, query: String?) throws {
        let outcome = parse(head("GET \(target) HTTP/1.1", "Host: ignored.test", "Accept: */*"))
        let request = try #require(outcome.requests.first, "\(outcome.failure?.reason ?? "")")
        #expect(request.headers.values(for: "Host") == [host])
        #expect(request.headers["Accept"] == "*/*")
        #expect(request.target == target)
        #expect(request.path == path)
        #expect(request.query == query)
    }

    @Test func absoluteFormSuppliesHostToHTTP10Request() throws {
        let request = try #require(parse(head("GET http://a.test/x HTTP/1.0")).requests.first)
        #expect(request.headers["host"] == "a.test")
    }

    @Test func absoluteFormStillNeedsHostInHTTP11() {
        // RFC 9112 §3.2: an HTTP/1.1 client sends Host even with an absolute-form target.
        #expect(parse(head("GET http://a.test/x HTTP/1.1")).failureCode == 400)
    }

    @Test(arguments: [8192, 8193])
    func requestLineLimitIsExact(length: Int) {
        let prefix = "GET /"
        let suffix = " HTTP/1.1"
        let line = prefix + String(repeating: "a", count: length - prefix.count - suffix.count) + suffix
        #expect(line.utf8.count == length)
        let outcome = parse(head(line, "Host: h"))
        if length <= 8192 {
            #expect(outcome.requests.count == 1)
        } else {
            #expect(outcome.failureCode == 414)
        }
    }

    @Test func unterminatedLongRequestLineIsRefusedBeforeItEnds() {
        var parser = HTTPRequestParser(limits: HTTPParserLimits(maxRequestLineBytes: 20))
        // 21 bytes: the 21st could still be the CR of a 20-byte line.
        parser.append(contentsOf: Array("GET /".utf8) + Array(repeating: UInt8(ascii: "a"), count: 16))
        #expect(parser.next() == .needMoreData)
        parser.append(contentsOf: [UInt8(ascii: "a")])
        #expect(
            parser.next() == .failure(HTTPParseError(status: .uriTooLong, reason: "request line longer than 20 bytes")))
    }

    @Test(arguments: [20, 21])
    func smallRequestLineLimitIsExact(length: Int) {
        let limits = HTTPParserLimits(maxRequestLineBytes: 20)
        let line = "GET /" + String(repeating: "b", count: length - 14) + " HTTP/1.1"
        #expect(line.utf8.count == length)
        let outcome = parse(head(line, "Host: h"), limits: limits)
        #expect(outcome.failureCode == (length <= 20 ? nil : 414))
        // The same line ended by a bare LF is still judged by its length first.
        let bare = parse(line + "\nHost: h\r\n\r\n", limits: limits)
        #expect(bare.failureCode == (length <= 20 ? 400 : 414))
    }
}
