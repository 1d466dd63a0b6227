import HTTPCore
import Testing

/// The chunked transfer coding (RFC 9112 §7.1): sizes, extensions, trailers and their limits.
@Suite struct HTTPRequestParserChunkedTests {
    /// A chunked POST with the given coded body, followed by a GET that must parse too.
    static func chunkedRequest(_ coded: String) -> String {
        head("POST /p HTTP/1.1", "Host: h", "Transfer-Encoding: chunked", body: coded)
            + head("GET /after HTTP/1.1", "Host: h")
    }

    static let goodBodies: [(String, String)] = [
        ("0\r\n\r\n", ""),
        ("5\r\nhello\r\n0\r\n\r\n", "hello"),
        ("5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", "hello world"),
        ("A\r\n0123456789\r\n0\r\n\r\n", "0123456789"),
        ("a\r\n0123456789\r\n0\r\n\r\n", "0123456789"),
        ("00000000000000000005\r\nhello\r\n0\r\n\r\n", "hello"),
        ("5;ext\r\nhello\r\n0\r\n\r\n", "hello"),
        ("5;a=b;c=\"d;e\\\"f\"\r\nhello\r\n0;last\r\n\r\n", "hello"),
        ("5 ; a = b\r\nhello\r\n0\r\n\r\n", "hello"),  // BWS around ; and =
        ("5\r\nhe\r\nx\r\n0\r\n\r\n", "he\r\nx"),  // CRLF inside data is data
        ("5\r\nhello\r\n0\r\nX-Trailer: 1\r\nOther: two\r\n\r\n", "hello"),
        ("0\r\nX-T:\r\n\r\n", ""),
    ]

    @Test(arguments: goodBodies)
    func chunkedBodyIsDecoded(coded: String, body: String) throws {
        let outcome = parse(Self.chunkedRequest(coded))
        #expect(outcome.failure == nil, "\(outcome.failure?.reason ?? "")")
        try #require(outcome.requests.count == 2)
        #expect(outcome.requests[0].body == Array(body.utf8))
        #expect(outcome.requests[1].path == "/after")
        // Trailer fields are dropped, never merged into the header section.
        #expect(!outcome.requests[0].headers.contains("X-Trailer"))
    }

    static let badBodies: [(String, Int)] = [
        ("x\r\n", 400),
        ("-5\r\nhello\r\n0\r\n\r\n", 400),
        ("+5\r\nhello\r\n0\r\n\r\n", 400),
        ("0x5\r\nhello\r\n0\r\n\r\n", 400),
        ("\r\nhello\r\n", 400),  // no size
        (" 5\r\nhello\r\n0\r\n\r\n", 400),
        ("5 \r\nhello\r\n0\r\n\r\n", 400),  // whitespace without an extension
        ("5;a \r\nhello\r\n0\r\n\r\n", 400),
        ("5\nhello\r\n0\r\n\r\n", 400),  // bare LF
        ("5\r\nhello\n0\r\n\r\n", 400),
        ("5\r\nhelloX\r\n0\r\n\r\n", 400),  // data longer than its size
        ("5\r\nhello\rX", 400),
        ("5\r\nhello\r\n0\r\n\n", 400),
        ("5;\r\nhello\r\n0\r\n\r\n", 400),
        ("5;=x\r\nhello\r\n0\r\n\r\n", 400),
        ("5;a=\r\nhello\r\n0\r\n\r\n", 400),
        ("5;a=\"open\r\nhello\r\n0\r\n\r\n", 400),
        ("5;a=b c\r\nhello\r\n0\r\n\r\n", 400),
        ("5;a\u{1}\r\nhello\r\n0\r\n\r\n", 400),
        ("5\r\nhello\r\n0\r\nbad trailer\r\n\r\n", 400),
        ("5\r\nhello\r\n0\r\nX : y\r\n\r\n", 400),
        ("5\r\nhello\r\n0\r\nX: y\r\n folded\r\n\r\n", 400),
        ("5\r\nhello\r\n0\r\nX: a\u{0}b\r\n\r\n", 400),
        ("10000000000000000\r\n", 413),  // 2^64 overflows
        ("ffffffffffffffffff\r\n", 413),
        ("100001\r\n", 413),  // over the 1 MiB body limit
    ]

    @Test(arguments: badBodies)
    func malformedChunkedBodyIsRejected(coded: String, status: Int) {
        let outcome = parse(Self.chunkedRequest(coded))
        #expect(outcome.requests.isEmpty)
        #expect(outcome.failureCode == status, "\(outcome.failure?.reason ?? "no failure")")
    }

    @Test(arguments: [(10, [6, 4], true), (10, [6, 5], false), (10, [11], false), (10, [10], true)])
    func chunkedBodyLimitCountsAllChunks(limit: Int, sizes: [Int], fits: Bool) {
        let coded =
            sizes.map { String($0, radix: 16) + "\r\n" + String(repeating: "z", count: $0) + "\r\n" }.joined()
            + "0\r\n\r\n"
        let outcome = parse(Self.chunkedRequest(coded), limits: HTTPParserLimits(maxBodyBytes: limit))
        #expect(outcome.failureCode == (fits ? nil : 413))
        #expect(outcome.requests.first?.body.count == (fits ? sizes.reduce(0, +) : nil))
    }

    @Test(arguments: [(12, true), (13, false)])
    func chunkExtensionBudgetIsExactAndShared(total: Int, fits: Bool) {
        // ";ab=cd" is 6 bytes; two chunks spend 12, the last one spends the 13th.
        let lastExtension = total == 12 ? "" : ";"
        let coded = "1;ab=cd\r\nz\r\n1;ab=cd\r\nz\r\n0\(lastExtension)\r\n\r\n"
        let outcome = parse(Self.chunkedRequest(coded), limits: HTTPParserLimits(maxChunkExtensionBytes: 12))
        if fits {
            #expect(outcome.failure == nil)
        } else {
            // ";" alone is malformed too, but the budget is checked first.
            #expect(outcome.failureCode == 413)
        }
    }

    @Test func unterminatedChunkSizeLineIsRefusedBeforeItEnds() {
        var parser = HTTPRequestParser(limits: HTTPParserLimits(maxChunkExtensionBytes: 8))
        parser.append(contentsOf: Array(head("POST / HTTP/1.1", "Host: h", "Transfer-Encoding: chunked").utf8))
        #expect(parser.next() == .needMoreData)
        parser.append(contentsOf: Array("5;".utf8) + Array(repeating: UInt8(ascii: "a"), count: 100))
        #expect(parser.next() == .failure(HTTPParseError(status: .contentTooLarge, reason: "chunk-size line too long")))
    }

    @Test(arguments: [(20, true), (21, false)])
    func trailerSectionLimitIsExact(total: Int, fits: Bool) {
        // "X: " plus n bytes plus CRLF is n + 5 bytes.
        let trailer = "X: " + String(repeating: "t", count: total - 5)
        let coded = "1\r\nz\r\n0\r\n\(trailer)\r\n\r\n"
        let outcome = parse(Self.chunkedRequest(coded), limits: HTTPParserLimits(maxTrailerBytes: 20))
        #expect(outcome.failureCode == (fits ? nil : 431))
    }

    @Test func largeChunkedBodyArrivingInPiecesIsDecoded() {
        let data = (0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var coded: [UInt8] = []
        var offset = 0
        for size in [1, 4095, 4096, 20_000, 21_808] {
            coded += Array(String(size, radix: 16).utf8) + [13, 10] + data[offset..<(offset + size)] + [13, 10]
            offset += size
        }
        coded += Array("0\r\n\r\n".utf8)
        let text = Array(head("PUT /big HTTP/1.1", "Host: h", "Transfer-Encoding: chunked").utf8) + coded
        for pieceSize in [1, 3, 1000, nil] as [Int?] {
            let outcome = feed(text, pieceSize: pieceSize)
            #expect(outcome.requests.first?.body == data, "piece size \(String(describing: pieceSize))")
        }
    }
}
