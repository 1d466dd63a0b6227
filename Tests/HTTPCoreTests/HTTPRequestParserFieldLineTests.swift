import HTTPCore
import Testing

/// Header field lines and Host (RFC 9112 §5, §3.2; RFC 9110 §5.5, §7.2).
@Suite struct HTTPRequestParserFieldLineTests {
    static let goodFields: [(String, String, String)] = [
        ("X-A: b", "X-A", "b"),
        ("X-A:b", "X-A", "b"),
        ("X-A:   b  \t", "X-A", "b"),
        ("X-A:", "X-A", ""),
        ("X-A: \t ", "X-A", ""),
        ("X-A: a\tb c", "X-A", "a\tb c"),  // HTAB and SP inside a value
        ("x-a: \"quoted, list\"", "x-a", "\"quoted, list\""),
        ("X-A: caf\u{E9}", "X-A", "caf\u{E9}"),  // obs-text (UTF-8 bytes above 0x7F)
        ("!#$%&'*+-.^_`|~09azAZ: v", "!#$%&'*+-.^_`|~09azAZ", "v"),
        ("X-A: a: b", "X-A", "a: b"),
    ]

    @Test(arguments: goodFields)
    func wellFormedFieldLineIsKept(line: String, name: String, value: String) throws {
        let outcome = parse(head("GET / HTTP/1.1", "Host: h.test", line))
        let request = try #require(outcome.requests.first, "\(outcome.failure?.reason ?? "")")
        let fields = Array(request.headers)
        #expect(fields.count == 2)
        #expect(fields.last?.name == name)
        #expect(fields.last?.value == value)
    }

    @Test func fieldOrderAndRepetitionAreKept() throws {
        let request = try #require(
            parse(head("GET / HTTP/1.1", "A: 1", "Host: h", "a: 2", "B: 3")).requests.first)
        #expect(Array(request.headers).map(\.name) == ["A", "Host", "a", "B"])
        #expect(request.headers.values(for: "A") == ["1", "2"])
    }

    static let badFields: [(String, Int)] = [
        ("X-A : b", 400),  // whitespace before the colon
        ("X-A\t: b", 400),
        (" X-A: b", 400),  // obs-fold / leading whitespace
        ("\tX-A: b", 400),
        ("X-A b", 400),  // no colon
        (": b", 400),  // empty name
        ("X(A): b", 400),
        ("X\"A: b", 400),
        ("X-\u{E9}: b", 400),  // non-ASCII name
        ("X-A: a\u{0}b", 400),  // NUL
        ("X-A: a\u{1}b", 400),
        ("X-A: a\u{1B}b", 400),
        ("X-A: a\u{7F}b", 400),
        ("X-A: a\rb", 400),  // bare CR
        ("X-A: a\r", 400),
        ("X-A: a\nY: b", 400),  // bare LF
        ("X-A: a\r\n b", 400),  // obs-fold after a line
        ("X-A: a\r\n\tb", 400),
    ]

    @Test(arguments: badFields)
    func malformedFieldLineIsRejected(line: String, status: Int) {
        let outcome = parse(head("GET / HTTP/1.1", "Host: h.test", line))
        #expect(outcome.requests.isEmpty)
        #expect(outcome.failureCode == status, "\(outcome.failure?.reason ?? "no failure")")
    }

    /// Values are checked eight bytes at a time; a bad byte must be found at every offset in a word.
    @Test(arguments: 0..<19)
    func controlByteIsFoundAtEveryOffset(offset: Int) {
        for bad: UInt8 in [0x00, 0x01, 0x0D, 0x1F, 0x7F] {
            var value = Array(repeating: UInt8(ascii: "v"), count: 19)
            value[offset] = bad
            let text = Array("GET / HTTP/1.1\r\nHost: h\r\nX: ".utf8) + value + Array("\r\n\r\n".utf8)
            #expect(parse(text).failureCode == 400, "byte \(bad) at \(offset)")
        }
        // HTAB is allowed inside a value (at the ends it is OWS and trimmed).
        guard (1...17).contains(offset) else { return }
        var tabbed = Array(repeating: UInt8(ascii: "v"), count: 19)
        tabbed[offset] = 0x09
        let text = Array("GET / HTTP/1.1\r\nHost: h\r\nX: ".utf8) + tabbed + Array("\r\n\r\n".utf8)
        #expect(parse(text).requests.first?.headers["X"].map { Array($0.utf8) } == tabbed)
    }

    @Test func whitespaceBetweenRequestLineAndFirstFieldIsRejected() {
        #expect(parse(head("GET / HTTP/1.1", " Host: h")).failureCode == 400)
    }

    @Test func bareCRAsHeaderTerminatorIsRejected() {
        #expect(parse("GET / HTTP/1.1\r\nHost: h\r\n\rX").failureCode == 400)
    }

    static let hosts: [(String, Bool)] = [
        ("a.test", true),
        ("a.test:8080", true),
        ("a.test:", true),  // port = *DIGIT
        ("A-b_c~d.test", true),
        ("1.2.3.4", true),
        ("1.2.3.4:80", true),
        ("a%2Eb", true),
        ("[::1]", true),
        ("[::1]:8080", true),
        ("[2001:db8::a:1]", true),
        ("[1:2:3:4:5:6:7:8]", true),
        ("[::ffff:192.0.2.1]", true),
        ("[v1.fe:x]", true),
        ("", false),
        ("a b", false),
        ("a.test:8o", false),
        ("a.test:80:81", false),
        ("a@b", false),
        ("a/b", false),
        ("a%2", false),
        ("a%zz", false),
        (":80", false),
        ("[::1", false),
        ("::1", false),
        ("[]", false),
        ("[1:2:3:4:5:6:7:8:9]", false),
        ("[1::2::3]", false),
        ("[12345::]", false),
        ("[::1]x", false),
        ("[::256.0.0.1]", false),
        ("[::01.2.3.4]", false),
        ("[v.x]", false),
        ("h\u{E9}", false),
    ]

    @Test(arguments: hosts)
    func hostValueIsCheckedAgainstURIGrammar(host: String, valid: Bool) {
        let outcome = parse(head("GET / HTTP/1.1", "Host: \(host)"))
        if valid {
            #expect(outcome.requests.first?.headers["Host"] == host, "\(outcome.failure?.reason ?? "")")
        } else {
            #expect(outcome.failureCode == 400)
        }
    }

    @Test func http11RequestWithoutHostIsRejected() {
        #expect(parse(head("GET / HTTP/1.1", "X: y")).failureCode == 400)
    }

    @Test func http10RequestWithoutHostIsAccepted() {
        #expect(parse(head("GET / HTTP/1.0")).requests.count == 1)
    }

    @Test(arguments: [("a.test", "a.test"), ("a.test", "b.test")])
    func hostTwiceIsRejectedEvenWhenIdentical(first: String, second: String) {
        #expect(parse(head("GET / HTTP/1.1", "Host: \(first)", "Host: \(second)")).failureCode == 400)
        #expect(parse(head("GET / HTTP/1.0", "host: \(first)", "HOST: \(second)")).failureCode == 400)
    }

    @Test func invalidHostIsRejectedInHTTP10Too() {
        #expect(parse(head("GET / HTTP/1.0", "Host: a b")).failureCode == 400)
    }

    // MARK: limits

    /// Fields that, with `Host: h\r\n` (9 bytes), fill exactly `total` bytes of header section.
    static func fields(totalling total: Int) -> [String] {
        var fields = ["Host: h"]
        let line = "X: " + String(repeating: "v", count: total - 9 - 5)
        fields.append(line)
        return fields
    }

    @Test(arguments: [(64, true), (65, false)])
    func headerSectionLimitIsExact(total: Int, fits: Bool) {
        let limits = HTTPParserLimits(maxHeaderBytes: 64)
        let lines = Self.fields(totalling: total)
        #expect(lines.map { $0.utf8.count + 2 }.reduce(0, +) == total)
        let text = "GET / HTTP/1.1\r\n" + lines.map { $0 + "\r\n" }.joined() + "\r\n"
        let outcome = parse(text, limits: limits)
        #expect(outcome.failureCode == (fits ? nil : 431))
        #expect(outcome.requests.count == (fits ? 1 : 0))
    }

    @Test func unterminatedHugeFieldIsRefusedBeforeItEnds() {
        var parser = HTTPRequestParser(limits: HTTPParserLimits(maxHeaderBytes: 64))
        parser.append(contentsOf: Array("GET / HTTP/1.1\r\nHost: h\r\nX: ".utf8))
        #expect(parser.next() == .needMoreData)
        parser.append(contentsOf: Array(repeating: UInt8(ascii: "v"), count: 1000))
        #expect(
            parser.next()
                == .failure(HTTPParseError(status: .requestHeaderFieldsTooLarge, reason: "header section too large")))
    }

    @Test(arguments: [(3, true), (4, false)])
    func headerCountLimitIsExact(count: Int, fits: Bool) {
        let limits = HTTPParserLimits(maxHeaderCount: 3)
        let lines = ["Host: h"] + (1..<count).map { "X-\($0): v" }
        let text = "GET / HTTP/1.1\r\n" + lines.map { $0 + "\r\n" }.joined() + "\r\n"
        let outcome = parse(text, limits: limits)
        #expect(outcome.failureCode == (fits ? nil : 431))
        #expect(outcome.requests.first?.headers.count == (fits ? count : nil))
    }

    /// The limit counts the lines the client sent. An HTTP/1.0 absolute-form request may fill it and
    /// still be handed out with the Host its target supplies (RFC 9112 §3.2.2), one field over the limit.
    /// Found by the HTTPParser fuzz target.
    @Test func hostFromAnAbsoluteTargetIsNotCountedAgainstTheLimit() throws {
        let limits = HTTPParserLimits(maxHeaderCount: 3)
        let text = "GET http://origin.test/a HTTP/1.0\r\nX-1: v\r\nX-2: v\r\nX-3: v\r\n\r\n"
        let outcome = parse(text, limits: limits)
        #expect(outcome.failureCode == nil)
        let request = try #require(outcome.requests.first)
        #expect(request.headers.count == 4)
        #expect(request.headers.values(for: "Host") == ["origin.test"])
    }
}
