import HTTPCore
import Testing

/// The parser as a whole: pipelining, failure stickiness, 100-continue and buffer handling.
@Suite struct HTTPRequestParserTests {
    static let three =
        head("GET /one HTTP/1.1", "Host: h", "User-Agent: t")
        + head("POST /two HTTP/1.1", "Host: h", "Content-Length: 3", body: "abc")
        + head("PUT /three HTTP/1.1", "Host: h", "Transfer-Encoding: chunked", body: "2\r\nxy\r\n0\r\n\r\n")

    @Test func threePipelinedRequestsComeOutInOrder() throws {
        let outcome = parse(Self.three)
        #expect(outcome.failure == nil)
        try #require(outcome.requests.count == 3)
        #expect(outcome.requests.map(\.path) == ["/one", "/two", "/three"])
        #expect(outcome.requests.map(\.method) == [.get, .post, .put])
        #expect(outcome.requests.map(\.body) == [[], Array("abc".utf8), Array("xy".utf8)])
        #expect(outcome.requests[0].headers["user-agent"] == "t")
    }

    @Test func pipelinedRequestsComeOutOnePerCall() {
        var parser = HTTPRequestParser()
        parser.append(contentsOf: Array(Self.three.utf8))
        guard case .request(let first) = parser.next() else {
            Issue.record("first")
            return
        }
        guard case .request(let second) = parser.next() else {
            Issue.record("second")
            return
        }
        guard case .request(let third) = parser.next() else {
            Issue.record("third")
            return
        }
        #expect([first.path, second.path, third.path] == ["/one", "/two", "/three"])
        #expect(parser.next() == .needMoreData)
    }

    static let badMiddles: [(String, Int)] = [
        (
            head("GET /bad HTTP/1.1", "Host: h", "Content-Length: 1", "Transfer-Encoding: chunked", body: "0\r\n\r\n"),
            400
        ),
        (head("GET /bad HTTP/1.1", "Host: h", "Content-Length: 1", "Content-Length: 2", body: "x"), 400),
        (head("GET /bad HTTP/1.1", "Host: h", "Transfer-Encoding: chunked", body: "zz\r\n"), 400),
        (head("GET /bad HTTP/1.1", "Host: h", "X : y"), 400),
        (head("GET /bad HTTP/2.0", "Host: h"), 505),
    ]

    @Test(arguments: badMiddles)
    func badRequestInTheMiddleStopsEverythingAfterIt(bad: String, status: Int) {
        let text = head("GET /first HTTP/1.1", "Host: h") + bad + head("GET /third HTTP/1.1", "Host: h")
        let outcome = parse(text)
        #expect(outcome.requests.map(\.path) == ["/first"])
        #expect(outcome.failureCode == status)
    }

    @Test func failureIsReturnedForeverAndLaterBytesAreIgnored() {
        var parser = HTTPRequestParser()
        parser.append(contentsOf: Array("GET / HTTP/1.1\r\nHost: h\r\nBad Name: x\r\n\r\n".utf8))
        let failure = parser.next()
        guard case .failure(let error) = failure else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.status == .badRequest)
        parser.append(contentsOf: Array(head("GET /ok HTTP/1.1", "Host: h").utf8))
        #expect(parser.next() == failure)
        #expect(parser.next() == failure)
    }

    @Test func smuggledRequestInsideABodyIsNotParsedAsARequest() throws {
        // The second request hides in the first one's Content-Length body.
        let hidden = head("GET /admin HTTP/1.1", "Host: h")
        let text = head("POST /p HTTP/1.1", "Host: h", "Content-Length: \(hidden.utf8.count)", body: hidden)
        let outcome = parse(text)
        try #require(outcome.requests.count == 1)
        #expect(outcome.requests[0].body == Array(hidden.utf8))
    }

    // MARK: 100-continue

    @Test func continueIsReportedOnceWhenTheHeadIsCompleteAndTheBodyIsMissing() {
        var parser = HTTPRequestParser()
        parser.append(
            contentsOf: Array(head("PUT /p HTTP/1.1", "Host: h", "Expect: 100-continue", "Content-Length: 5").utf8))
        #expect(parser.next() == .expectsContinue)
        #expect(parser.next() == .needMoreData)
        parser.append(contentsOf: Array("hel".utf8))
        #expect(parser.next() == .needMoreData)
        parser.append(contentsOf: Array("lo".utf8))
        guard case .request(let request) = parser.next() else {
            Issue.record("no request")
            return
        }
        #expect(request.body == Array("hello".utf8))
        #expect(parser.next() == .needMoreData)
    }

    @Test func continueIsReportedForChunkedBodiesWithPartOfTheBodyPresent() {
        var parser = HTTPRequestParser()
        parser.append(
            contentsOf: Array(
                head(
                    "PUT /p HTTP/1.1", "Host: h", "Expect: 100-continue", "Transfer-Encoding: chunked", body: "5\r\nhe"
                )
                .utf8))
        #expect(parser.next() == .expectsContinue)
        #expect(parser.next() == .needMoreData)
        parser.append(contentsOf: Array("llo\r\n0\r\n\r\n".utf8))
        guard case .request(let request) = parser.next() else {
            Issue.record("no request")
            return
        }
        #expect(request.body == Array("hello".utf8))
    }

    static let noContinue: [String] = [
        // The body is already there.
        head("PUT /p HTTP/1.1", "Host: h", "Expect: 100-continue", "Content-Length: 2", body: "ok"),
        // No body at all.
        head("GET /p HTTP/1.1", "Host: h", "Expect: 100-continue"),
        head("PUT /p HTTP/1.1", "Host: h", "Expect: 100-continue", "Content-Length: 0"),
    ]

    @Test(arguments: noContinue)
    func continueIsNotReportedWithoutAMissingBody(text: String) {
        let outcome = feed(Array(text.utf8))
        #expect(outcome.continues == 0)
        #expect(outcome.requests.count == 1)
    }

    @Test func continueExpectationIsIgnoredInHTTP10() {
        var parser = HTTPRequestParser()
        parser.append(contentsOf: Array(head("PUT /p HTTP/1.0", "Expect: 100-continue", "Content-Length: 5").utf8))
        #expect(parser.next() == .needMoreData)
    }

    @Test func oversizedBodyIsRefusedInsteadOfContinued() {
        var parser = HTTPRequestParser(limits: HTTPParserLimits(maxBodyBytes: 4))
        parser.append(
            contentsOf: Array(head("PUT /p HTTP/1.1", "Host: h", "Expect: 100-continue", "Content-Length: 5").utf8))
        guard case .failure(let error) = parser.next() else {
            Issue.record("expected 413")
            return
        }
        #expect(error.status == .contentTooLarge)
    }

    @Test func continueIsReportedForEachPipelinedRequestThatWaits() {
        let text =
            head("PUT /a HTTP/1.1", "Host: h", "Expect: 100-continue", "Content-Length: 1", body: "a")
            + head("PUT /b HTTP/1.1", "Host: h", "Expect: 100-continue", "Content-Length: 1")
        var parser = HTTPRequestParser()
        parser.append(contentsOf: Array(text.utf8))
        guard case .request = parser.next() else {
            Issue.record("first request")
            return
        }
        #expect(parser.next() == .expectsContinue)
        #expect(parser.next() == .needMoreData)
    }

    @Test func limitsOfIntMaxMeanNoLimitAndDoNotOverflow() {
        let unlimited = HTTPParserLimits(
            maxRequestLineBytes: .max, maxHeaderBytes: .max, maxHeaderCount: .max, maxBodyBytes: .max,
            maxEmptyLinesBeforeRequest: .max, maxChunkExtensionBytes: .max, maxTrailerBytes: .max)
        let text =
            "\r\n"
            + head(
                "POST /p HTTP/1.1", "Host: h", "Transfer-Encoding: chunked", body: "3;x=y\r\nabc\r\n0\r\nT: 1\r\n\r\n")
            + head("PUT /q HTTP/1.1", "Host: h", "Content-Length: 2", body: "ok")
        let outcome = parse(text, limits: unlimited)
        #expect(outcome.failure == nil)
        #expect(outcome.requests.map(\.body) == [Array("abc".utf8), Array("ok".utf8)])
    }

    @Test func idleAndBodyStatesFollowTheBytes() {
        var parser = HTTPRequestParser()
        #expect(parser.isIdle && !parser.isReadingBody)
        parser.append(contentsOf: Array("\r\n".utf8))
        #expect(parser.next() == .needMoreData)
        // A stray empty line is ignored (RFC 9112 §2.2): the connection is still between requests.
        #expect(parser.isIdle)
        parser.append(contentsOf: Array("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n".utf8))
        #expect(parser.next() == .needMoreData)
        #expect(!parser.isIdle && !parser.isReadingBody)
        parser.append(contentsOf: Array("\r\no".utf8))
        #expect(parser.next() == .needMoreData)
        #expect(!parser.isIdle && parser.isReadingBody)
        parser.append(contentsOf: Array("k".utf8))
        guard case .request = parser.next() else {
            Issue.record("no request")
            return
        }
        #expect(parser.isIdle && !parser.isReadingBody)
        parser.append(contentsOf: Array("X".utf8))
        #expect(parser.next() == .needMoreData)
        #expect(!parser.isIdle)
    }

    // MARK: buffer handling

    @Test(arguments: [1, 100, 1000, 4097])
    func manyPipelinedRequestsSurviveBufferCompaction(pieceSize: Int) {
        let one = head("POST /r HTTP/1.1", "Host: h", "Content-Length: 10", body: "0123456789")
        let text = Array(String(repeating: one, count: 600).utf8)
        let outcome = feed(text, pieceSize: pieceSize)
        #expect(outcome.failure == nil)
        #expect(outcome.requests.count == 600)
        #expect(outcome.requests.allSatisfy { $0.body == Array("0123456789".utf8) })
    }

    @Test func requestSplitAcrossCompactionKeepsItsPartialLine() {
        // 5000 bytes of requests, then half of a request line: compaction must keep the half.
        let filler = head("GET /" + String(repeating: "f", count: 4900) + " HTTP/1.1", "Host: h")
        var parser = HTTPRequestParser()
        parser.append(contentsOf: Array((filler + "GET /sec").utf8))
        guard case .request = parser.next() else {
            Issue.record("filler")
            return
        }
        #expect(parser.next() == .needMoreData)
        parser.append(contentsOf: Array("ond HTTP/1.1\r\nHost: h\r\n\r\n".utf8))
        guard case .request(let second) = parser.next() else {
            Issue.record("second")
            return
        }
        #expect(second.path == "/second")
    }
}
