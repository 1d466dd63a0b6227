import Testing

@testable import HTTPCore

/// Request identifiers: the caller's when usable, made ones shaped as UUIDv8, their header field and URI.
struct HTTPRequestIDTests {
    /// Whether `text` is a made identifier: `xxxxxxxx-xxxx-8xxx-[89ab]xxx-xxxxxxxxxxxx`, lower-case hex.
    static func isMadeShape(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36, bytes[14] == UInt8(ascii: "8"), "89ab".utf8.contains(bytes[19]) else { return false }
        return bytes.indices.allSatisfy { index in
            [8, 13, 18, 23].contains(index)
                ? bytes[index] == UInt8(ascii: "-") : "0123456789abcdef".utf8.contains(bytes[index])
        }
    }

    @Test(arguments: ["abc", "req-42", "!~", String(repeating: "x", count: 128), "a\"b\\c"])
    func usableCallerIDIsKept(_ given: String) {
        let id = HTTPRequestID(headers: HTTPHeaders([("x-request-id", given)]))
        #expect(id.description == given)
        var out: [UInt8] = []
        id.appendField(to: &out)
        #expect(out == Array("X-Request-Id: \(given)\r\n".utf8))
    }

    @Test(arguments: ["", String(repeating: "x", count: 129), "a b", "caf\u{E9}", "tab\there", "nul\u{0}"])
    func unusableCallerIDIsReplaced(_ given: String) throws {
        let id = HTTPRequestID(headers: HTTPHeaders([("X-Request-Id", given)]))
        #expect(id.description != given)
        #expect(Self.isMadeShape(id.description), "\(id)")
        #expect(HTTPRequestID(given) == nil)
    }

    @Test func madeIDsAreDistinctUUIDsWithOneProcessPrefix() throws {
        let ids = (0..<1000).map { _ in HTTPRequestID(headers: HTTPHeaders()).description }
        #expect(Set(ids).count == 1000)
        for id in ids { #expect(Self.isMadeShape(id), "\(id)") }
        #expect(Set(ids.map { $0.prefix(19) }).count == 1)
        let made = HTTPRequestID()
        #expect(made.uri == "urn:uuid:\(made)")
        var out: [UInt8] = []
        made.appendField(to: &out)
        #expect(String(decoding: out, as: UTF8.self) == "X-Request-Id: \(made)\r\n")
    }

    @Test(arguments: [
        ("3F2504E0-4F89-11D3-9A0C-0305E82C3301", "urn:uuid:3f2504e0-4f89-11d3-9a0c-0305e82c3301"),
        ("job/7?try=2", "tag:larder.dev,2026:request-id:job%2F7%3Ftry%3D2"),
        ("a\"b", "tag:larder.dev,2026:request-id:a%22b"),
        ("plain-id_1.2~", "tag:larder.dev,2026:request-id:plain-id_1.2~"),
    ])
    func callerIDBecomesAURI(given: String, uri: String) throws {
        #expect(try #require(HTTPRequestID(given)).uri == uri)
    }

    @Test(arguments: [
        (UInt32(0), "00000000"), (0x0123_ABCD, "0123abcd"), (0xFFFF_FFFF, "ffffffff"), (0x9A0F_5E61, "9a0f5e61"),
    ])
    func wordIsSpelledAsEightHexDigitsMostSignificantFirst(value: UInt32, digits: String) {
        let word = HTTPRequestID.hexWord(value)
        #expect(withUnsafeBytes(of: word) { String(decoding: $0, as: UTF8.self) } == digits)
    }

    @Test func problemGetsInstanceAsItsLastMember() {
        let problem = ProblemDetails(type: "https://larder.dev/problems/x", title: "Bad Request", status: 400)
        let json = Array(problem.json.utf8)
        let added = ProblemDetails.addingInstance("urn:uuid:1", to: json)
        #expect(
            String(decoding: added, as: UTF8.self) == String(problem.json.dropLast()) + #","instance":"urn:uuid:1"}"#)
        #expect(
            ProblemDetails.addingInstance("urn:uuid:1", to: Array("{}".utf8))
                == Array(#"{"instance":"urn:uuid:1"}"#.utf8))
        #expect(ProblemDetails.addingInstance("urn:uuid:1", to: Array("[1]".utf8)) == Array("[1]".utf8))
        #expect(problem.makeResponse().isProblem)
        #expect(!HTTPResponse(status: .ok).isProblem)
    }
}
