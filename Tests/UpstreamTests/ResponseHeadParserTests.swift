import HTTPCore
import Testing

@testable import Upstream

struct ResponseHeadParserTests {
    private func feed(_ lines: [String]) -> [ResponseHeadParser.Outcome] {
        var parser = ResponseHeadParser()
        return lines.map { line in Array(line.utf8).withUnsafeBytes { parser.consume($0) } }
    }

    @Test func finalHeadKeepsFieldOrderAndVersion() {
        let outcomes = feed(["HTTP/1.1 200 OK\r\n", "B: 1\r\n", "A: 2\r\n", "B: 3\r\n", "\r\n"])
        let head = OriginResponseHead(
            status: 200, reasonPhrase: "OK", headers: HTTPHeaders([("B", "1"), ("A", "2"), ("B", "3")]),
            version: .http1_1)
        #expect(outcomes.last == .head(head))
    }

    /// The fields of the connection with the origin end at the parser (RFC 9110 §7.6.1): the hop-by-hop ones,
    /// in any case, and every field `Connection` names; the others keep their order.
    @Test func theFieldsOfTheConnectionAreLeftOutOfAHead() {
        let outcomes = feed([
            "HTTP/1.1 200 OK\r\n", "Connection: keep-alive, X-Hop\r\n", "B: 1\r\n", "keep-alive: timeout=5\r\n",
            "X-Hop: a\r\n", "Transfer-Encoding: chunked\r\n", "A: 2\r\n", "Trailer: X-T\r\n", "\r\n",
        ])
        let head = OriginResponseHead(
            status: 200, reasonPhrase: "OK", headers: HTTPHeaders([("B", "1"), ("A", "2")]), version: .http1_1)
        #expect(outcomes.last == .head(head))
    }

    @Test func interimHeadsAreReportedApartAndTheFinalHeadHasOnlyItsOwnFields() {
        let outcomes = feed([
            "HTTP/1.1 100 Continue\r\n", "\r\n", "HTTP/1.1 103 Early Hints\r\n", "Link: </a>\r\n", "\r\n",
            "HTTP/1.1 204 No Content\r\n", "\r\n",
        ])
        #expect(
            outcomes.filter { $0 != .needMore } == [
                .interim(
                    OriginResponseHead(status: 100, reasonPhrase: "Continue", headers: HTTPHeaders(), version: .http1_1)
                ),
                .interim(
                    OriginResponseHead(
                        status: 103, reasonPhrase: "Early Hints", headers: HTTPHeaders([("Link", "</a>")]),
                        version: .http1_1)),
                .head(
                    OriginResponseHead(
                        status: 204, reasonPhrase: "No Content", headers: HTTPHeaders(), version: .http1_1)),
            ])
    }

    @Test func http2StatusLineHasVersionTwoAndNoReason() {
        guard case .head(let head) = feed(["HTTP/2 304 \r\n", "etag: \"x\"\r\n", "\r\n"]).last else {
            Issue.record("no head")
            return
        }
        #expect(head.version == HTTPVersion(major: 2, minor: 0))
        #expect(head.status == 304)
        #expect(head.headers["ETag"] == "\"x\"")
    }

    @Test func statusLineVersionCodeAndReasonAreReadFromTheBytes() {
        guard case .head(let head) = feed(["HTTP/1.0 404 Not Found Here\r\n", "\r\n"]).last else {
            Issue.record("no head")
            return
        }
        #expect(head.version == .http1_0)
        #expect(head.status == 404)
        #expect(head.reasonPhrase == "Not Found Here")
        guard case .head(let bare) = feed(["HTTP/1.1 599\r\n", "\r\n"]).last else {
            Issue.record("no head")
            return
        }
        #expect(bare.status == 599)
        #expect(bare.reasonPhrase == "")
    }

    @Test func valuesAreTrimmedOfSpacesAndTabsOnly() {
        let lines = ["HTTP/1.1 200 OK\r\n", "X:\t a  b \t\r\n", "Empty:\r\n", "Y: caf\u{E9} \r\n", "\r\n"]
        guard case .head(let head) = feed(lines).last else {
            Issue.record("no head")
            return
        }
        #expect(head.headers["X"] == "a  b")
        #expect(head.headers["Empty"] == "")
        #expect(head.headers["Y"] == "caf\u{E9}")
    }

    @Test func obsFoldIsJoinedWithASpace() {
        guard case .head(let head) = feed(["HTTP/1.1 200 OK\r\n", "X: a\r\n", "  b\r\n", "\r\n"]).last else {
            Issue.record("no head")
            return
        }
        #expect(head.headers["X"] == "a b")
    }

    @Test func trailersAfterTheHeadAreIgnored() {
        var parser = ResponseHeadParser()
        for line in ["HTTP/1.1 200 OK\r\n", "\r\n", "X-Trailer: 1\r\n", "\r\n"] {
            _ = Array(line.utf8).withUnsafeBytes { parser.consume($0) }
        }
        #expect(parser.isComplete)
        #expect(parser.headerBytes == 17 + 2 + 14 + 2)
    }

    @Test(arguments: [
        ["HTTP/1.1 2000 OK\r\n"], ["X: y\r\n"], ["HTTP/1.1 200 OK\r\n", "no colon\r\n"], ["\r\n"],
        ["HTTP/1.1 abc\r\n"], ["HTTP/1.1 099 Low\r\n"], ["HTTP/1.1 +20 Signed\r\n"], ["HTTP/1.1\r\n"],
        ["HTTP/1.1  200 OK\r\n"],
    ])
    func malformedHeadsAreReported(lines: [String]) {
        #expect(feed(lines).contains { if case .malformed = $0 { true } else { false } })
    }
}
