import Testing

@testable import HTTPCore

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct HTTPResponseSerializationTests {
    private func head(_ response: HTTPResponse, framing: HTTPResponse.Framing, connection: StaticString? = nil)
        -> String
    {
        var out: [UInt8] = []
        response.serializeHead(into: &out, framing: framing, connection: connection)
        return String(decoding: out, as: UTF8.self)
    }

    @Test(arguments: [
        (784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"),
        (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
        (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),
        (4_102_444_799, "Thu, 31 Dec 2099 23:59:59 GMT"),
        (1_700_000_000, "Tue, 14 Nov 2023 22:13:20 GMT"),
    ])
    func imfFixdateMatchesRFC9110(seconds: Int, expected: String) {
        // The serializer's Date line is HTTPDate's IMF-fixdate.
        let out = Array(HTTPDate(secondsSinceEpoch: Int64(seconds)).imfFixdate.utf8)
        #expect(String(decoding: out, as: UTF8.self) == expected)
    }

    @Test func dateLineIsTheCurrentTimeAsIMFFixdate() throws {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let text = head(HTTPResponse(status: .ok), framing: .contentLength(0))
        let line = try #require(text.split(separator: "\r\n").first { $0.hasPrefix("Date: ") })
        let date = try #require(HTTPDate(line.dropFirst("Date: ".count)))
        #expect(date.imfFixdate == String(line.dropFirst("Date: ".count)))
        #expect(abs(date.secondsSinceEpoch - Int64(now.tv_sec)) <= 2)
    }

    @Test func headHasStatusLineFieldsDateAndLength() {
        let response = HTTPResponse(status: .notFound, headers: HTTPHeaders([("Content-Type", "text/plain")]))
        let text = head(response, framing: .contentLength(1234))
        #expect(text.hasPrefix("HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nDate: "))
        #expect(text.hasSuffix(" GMT\r\nContent-Length: 1234\r\n\r\n"))
    }

    @Test func handlerFramingFieldsAreReplacedByTheServers() {
        let response = HTTPResponse(
            status: .ok,
            headers: HTTPHeaders([
                ("content-length", "5"), ("Transfer-Encoding", "gzip"), ("Connection", "upgrade"), ("X-A", "1"),
            ]))
        let text = head(response, framing: .chunked, connection: "close")
        #expect(!text.contains("content-length"))
        #expect(!text.contains("gzip"))
        #expect(!text.contains("upgrade"))
        #expect(text.contains("X-A: 1\r\n"))
        #expect(text.hasSuffix("Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"))
    }

    @Test func handlerDateIsKept() {
        let response = HTTPResponse(status: .ok, headers: HTTPHeaders([("Date", "Sun, 06 Nov 1994 08:49:37 GMT")]))
        let text = head(response, framing: .none)
        #expect(text == "HTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n")
    }

    @Test(arguments: [
        (255, false, "ff\r\n"),
        (4096, true, "\r\n1000\r\n"),
        (0, true, "\r\n0\r\n\r\n"),
        (0, false, "0\r\n\r\n"),
        (1, false, "1\r\n"),
    ])
    func chunkHeaders(size: Int, afterData: Bool, expected: String) {
        var out: [UInt8] = []
        HTTPResponse.serializeChunkHeader(size: size, afterData: afterData, into: &out)
        #expect(String(decoding: out, as: UTF8.self) == expected)
    }

    /// An interim response carries its fields and nothing the server adds to a final one.
    @Test func anInterimResponseHasItsFieldsAndNoDateFramingOrConnection() {
        let response = HTTPResponse(
            status: HTTPStatus(code: 103),
            headers: HTTPHeaders([("Link", "</a.css>; rel=preload"), ("Content-Length", "9"), ("Connection", "close")]))
        var out: [UInt8] = []
        response.serializeInterim(into: &out)
        #expect(
            String(decoding: out, as: UTF8.self) == "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n")
    }

    @Test func continueIsAnInterimResponse() {
        var out: [UInt8] = []
        HTTPResponse.serializeContinue(into: &out)
        #expect(String(decoding: out, as: UTF8.self) == "HTTP/1.1 100 Continue\r\n\r\n")
    }
}
