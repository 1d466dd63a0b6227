import HTTPCore
import Testing

@testable import Upstream

struct OriginHeaderForwardingTests {
    @Test func hopByHopAndConnectionNamedFieldsAreDroppedAndOrderKept() throws {
        let headers = HTTPHeaders([
            ("Accept", "image/*"), ("Connection", "keep-alive, X-Secret"), ("X-Secret", "s"), ("Keep-Alive", "300"),
            ("TE", "trailers"), ("Trailer", "X"), ("Transfer-Encoding", "chunked"), ("Upgrade", "h2c"),
            ("Proxy-Authorization", "Basic x"), ("Proxy-Authenticate", "Basic"), ("Proxy-Connection", "close"),
            ("Accept-Encoding", "gzip"), ("Cookie", "a=1"), ("Accept", "text/*"),
        ])
        let forwarded = try OriginHeaderForwarding.forwardedRequestHeaders(headers, viaName: "larder")
        #expect(forwarded.map(\.name) == ["Accept", "Accept-Encoding", "Cookie", "Accept", "Via"])
        #expect(forwarded.values(for: "Accept") == ["image/*", "text/*"])
    }

    @Test func hostContentLengthAndExpectAreNotForwarded() throws {
        let headers = HTTPHeaders([("Host", "evil.example"), ("Content-Length", "5"), ("Expect", "100-continue")])
        let forwarded = try OriginHeaderForwarding.forwardedRequestHeaders(headers, viaName: "larder")
        #expect(forwarded.map(\.name) == ["Via"])
    }

    @Test(arguments: [
        ([], "1.1 larder"), (["1.0 fred"], "1.0 fred, 1.1 larder"),
        (["1.0 fred", "1.1 p.example (Apache/1.1)"], "1.0 fred, 1.1 p.example (Apache/1.1), 1.1 larder"),
    ])
    func viaIsAppended(existing: [String], expected: String) throws {
        let headers = HTTPHeaders(existing.map { ("Via", $0) })
        let forwarded = try OriginHeaderForwarding.forwardedRequestHeaders(headers, viaName: "larder")
        #expect(forwarded.values(for: "Via") == [expected])
    }

    @Test(arguments: ["a\rb", "a\nb", "a\0b", "x\r\nInjected: yes", "\u{7F}", "a\u{1}b"])
    func valuesWithControlBytesAreRefused(value: String) {
        #expect {
            try OriginHeaderForwarding.forwardedRequestHeaders(HTTPHeaders([("X-Test", value)]), viaName: "larder")
        } throws: { error in
            guard case .invalidRequestHeader(let name, _) = error as? OriginError else { return false }
            return name == "X-Test"
        }
    }

    @Test(arguments: ["Bad Name", "X:Y", "", "X\rY", "Ä"])
    func malformedNamesAreRefused(name: String) {
        #expect(throws: OriginError.self) {
            try OriginHeaderForwarding.forwardedRequestHeaders(HTTPHeaders([(name, "v")]), viaName: "larder")
        }
    }

    @Test func tabsAndObsTextInValuesAreForwarded() throws {
        let headers = HTTPHeaders([("X-Tab", "a\tb"), ("X-Latin", "caf\u{E9}")])
        let forwarded = try OriginHeaderForwarding.forwardedRequestHeaders(headers, viaName: "larder")
        #expect(forwarded["X-Tab"] == "a\tb")
        #expect(forwarded["X-Latin"] == "caf\u{E9}")
    }

    @Test(arguments: [
        (["1.1 larder"], true), (["1.1 other, 1.1 LARDER"], true), (["HTTP/1.1 larder (Larder)"], true),
        (["1.1 larder-2"], false), (["1.1 other"], false), ([], false), (["larder"], false),
        (["1.0 a", "1.1 larder"], true),
    ])
    func loopIsDetectedByViaPseudonym(via: [String], isLoop: Bool) {
        let headers = HTTPHeaders(via.map { ("Via", $0) })
        #expect(OriginHeaderForwarding.isLoop(requestHeaders: headers, viaName: "larder") == isLoop)
    }

    @Test func endToEndStripsResponseHopByHopFields() {
        let response = HTTPHeaders([
            ("Content-Type", "image/png"), ("Connection", "close, X-Hop"), ("X-Hop", "1"),
            ("Transfer-Encoding", "chunked"),
            ("Cache-Control", "max-age=60"),
        ])
        #expect(OriginHeaderForwarding.endToEnd(response).map(\.name) == ["Content-Type", "Cache-Control"])
    }

    @Test func curlLinesSendEmptyValuesAndSuppressCurlsDefaultAccept() {
        let lines = CurlHeaderList(headers: HTTPHeaders([("X-Empty", ""), ("X-A", "b")]), sendsBody: false).lines
        #expect(lines == ["X-Empty;", "X-A: b", "Accept:"])
        #expect(CurlHeaderList(headers: HTTPHeaders([("accept", "*/*")]), sendsBody: false).lines == ["accept: */*"])
        #expect(
            CurlHeaderList(headers: HTTPHeaders([("Content-Type", "text/plain")]), sendsBody: true).lines == [
                "Content-Type: text/plain", "Accept:", "Expect:",
            ])
        #expect(
            CurlHeaderList(headers: HTTPHeaders(), sendsBody: true).lines == ["Accept:", "Content-Type:", "Expect:"])
    }
}
