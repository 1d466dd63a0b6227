import HTTPCore
import Testing

/// Message framing (RFC 9112 §6): Content-Length, Transfer-Encoding, Expect and the body limit.
@Suite struct HTTPRequestParserFramingTests {
    static let goodLengths: [([String], String)] = [
        (["5"], "hello"),
        (["0"], ""),
        (["005"], "hello"),
        ([" 5 "], "hello"),
        (["5, 5"], "hello"),
        (["5,5"], "hello"),
        (["5", "5"], "hello"),
        (["5, 5", "5"], "hello"),
    ]

    @Test(arguments: goodLengths)
    func contentLengthFramesTheBody(values: [String], body: String) throws {
        let lines = ["POST /p HTTP/1.1", "Host: h"] + values.map { "Content-Length:\($0)" }
        let text = lines.map { $0 + "\r\n" }.joined() + "\r\n" + body + "GET /next HTTP/1.1\r\nHost: h\r\n\r\n"
        let outcome = parse(text)
        #expect(outcome.failure == nil, "\(outcome.failure?.reason ?? "")")
        try #require(outcome.requests.count == 2)
        #expect(outcome.requests[0].body == Array(body.utf8))
        #expect(outcome.requests[1].path == "/next")
    }

    static let badLengths: [[String]] = [
        ["+5"], ["-5"], ["5 5"], ["0x5"], ["5.0"], ["5e0"], [""], ["5,"], [",5"], ["5,,5"], ["5, 6"],
        ["5", "6"], ["5", ""], ["99999999999999999999999"], ["١"], ["5;"],
    ]

    @Test(arguments: badLengths)
    func malformedOrConflictingContentLengthIsRejected(values: [String]) {
        let lines = ["POST /p HTTP/1.1", "Host: h"] + values.map { "Content-Length: \($0)" }
        let text = lines.map { $0 + "\r\n" }.joined() + "\r\n" + "hello"
        let outcome = parse(text)
        #expect(outcome.requests.isEmpty)
        #expect(outcome.failureCode == 400, "\(outcome.failure?.reason ?? "no failure")")
    }

    @Test func requestWithoutFramingHasNoBody() throws {
        let outcome = parse(head("POST /p HTTP/1.1", "Host: h") + "GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        try #require(outcome.requests.count == 2)
        #expect(outcome.requests[0].body.isEmpty)
    }

    static let transferEncodings: [([String], Int?)] = [
        (["chunked"], nil),
        (["Chunked"], nil),
        (["CHUNKED"], nil),
        ([" chunked "], nil),
        ([", chunked"], nil),  // empty list members are ignored
        (["chunked,"], nil),
        (["gzip, chunked"], 501),
        (["gzip", "chunked"], 501),
        (["x-custom;a=1, chunked"], 501),
        (["gzip"], 400),  // chunked is not final (RFC 9112 §6.3)
        (["identity"], 400),
        ([""], 400),
        (["chunked, gzip"], 400),
        (["chunked", "gzip"], 400),
        (["chunked, chunked"], 400),
        (["chunked", "chunked"], 400),
        (["chunked;a=b"], 400),
        (["chunked x"], 400),
        (["chu\"nked"], 400),
        (["gzip;=1, chunked"], 400),
        (["gzip;a, chunked"], 400),
        (["\u{1}chunked"], 400),
    ]

    @Test(arguments: transferEncodings)
    func transferEncodingMustEndInOneChunked(values: [String], status: Int?) {
        let lines = ["POST /p HTTP/1.1", "Host: h"] + values.map { "Transfer-Encoding: \($0)" }
        let text = lines.map { $0 + "\r\n" }.joined() + "\r\n" + "5\r\nhello\r\n0\r\n\r\n"
        let outcome = parse(text)
        #expect(outcome.failureCode == status, "\(outcome.failure?.reason ?? "no failure")")
        if status == nil {
            #expect(outcome.requests.first?.body == Array("hello".utf8))
        }
    }

    @Test(arguments: [
        ["Content-Length: 5", "Transfer-Encoding: chunked"],
        ["Transfer-Encoding: chunked", "Content-Length: 5"],
        ["Transfer-Encoding: chunked", "Content-Length: 0"],
        ["Content-Length: 5", "Transfer-Encoding: gzip"],
        ["Content-Length: x", "Transfer-Encoding: chunked"],
    ])
    func contentLengthWithTransferEncodingIsRejected(fields: [String]) {
        let lines = ["POST /p HTTP/1.1", "Host: h"] + fields
        let text = lines.map { $0 + "\r\n" }.joined() + "\r\n" + "5\r\nhello\r\n0\r\n\r\n"
        let outcome = parse(text)
        #expect(outcome.requests.isEmpty)
        #expect(outcome.failureCode == 400)
    }

    @Test func transferEncodingInHTTP10IsRejected() {
        let text = head("POST /p HTTP/1.0", "Transfer-Encoding: chunked", body: "0\r\n\r\n")
        #expect(parse(text).failureCode == 400)
    }

    @Test(arguments: [(10, 10, nil), (10, 11, 413), (0, 1, 413)] as [(Int, Int, Int?)])
    func contentLengthOverLimitIsRefusedBeforeTheBody(limit: Int, length: Int, status: Int?) {
        var parser = HTTPRequestParser(limits: HTTPParserLimits(maxBodyBytes: limit))
        parser.append(contentsOf: Array(head("POST /p HTTP/1.1", "Host: h", "Content-Length: \(length)").utf8))
        if let status {
            #expect(
                parser.next()
                    == .failure(
                        HTTPParseError(status: HTTPStatus(code: status), reason: "body larger than \(limit) bytes")))
        } else {
            #expect(parser.next() == .needMoreData)
            parser.append(contentsOf: Array(repeating: 7, count: length))
            guard case .request(let request) = parser.next() else {
                Issue.record("no request")
                return
            }
            #expect(request.body == Array(repeating: 7, count: length))
        }
    }

    static let expectations: [(String, Int?)] = [
        ("100-continue", nil),
        ("100-Continue", nil),
        ("100-continue, ", nil),
        ("", nil),
        ("200-ok", 417),
        ("100-continue, x", 417),
        ("100-continue;a=b", 417),
    ]

    @Test(arguments: expectations)
    func onlyTheContinueExpectationIsKnown(value: String, status: Int?) {
        let text = head("POST /p HTTP/1.1", "Host: h", "Expect: \(value)", "Content-Length: 2", body: "ok")
        let outcome = parse(text)
        #expect(outcome.failureCode == status)
        #expect(outcome.requests.count == (status == nil ? 1 : 0))
    }
}
