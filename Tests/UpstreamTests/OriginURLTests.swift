import Testing
import Upstream

struct OriginURLTests {
    @Test(arguments: [
        ("http://example.com", "http://example.com/"),
        ("HTTPS://Example.COM:8443/a?b#frag", "https://example.com:8443/a?b"),
        ("http://[2001:db8::1]:8080/x", "http://[2001:db8::1]:8080/x"),
        // WHATWG URL §3.5: a host ending in a number goes to libcurl in dotted decimal.
        ("http://2130706433/", "http://127.0.0.1/"),
        ("http://0x7f.1/", "http://127.0.0.1/"),
        ("http://127.0.0.1.:8080/a", "http://127.0.0.1:8080/a"),
        ("http://0177.0.0.1/", "http://127.0.0.1/"),
        ("http://example.com./", "http://example.com./"),
        ("http://example.com/\u{FC}", "http://example.com/%C3%BC"),
        ("http://example.com:/", "http://example.com/"),
        ("http://example.com?q=1", "http://example.com/?q=1"),
        ("http://a_b.example.com/x/../y", "http://a_b.example.com/x/../y"),
        ("http://example.com:65535/", "http://example.com:65535/"),
        // Each part that is not written as it is handed on makes the URL rewritten, alone.
        ("HTTP://example.com/a", "http://example.com/a"),
        ("http://Example.com/a", "http://example.com/a"),
        ("http://example.com:080/a", "http://example.com:80/a"),
        ("http://[2001:DB8::1]/a", "http://[2001:db8::1]/a"),
        ("http://example.com/a#", "http://example.com/a"),
        ("http://example.com/a?b=%C3%BC", "http://example.com/a?b=%C3%BC"),
        ("http://EXAMPLE.com:08080?x", "http://example.com:8080/?x"),
    ])
    func acceptedURLsAreNormalized(text: String, normalized: String) throws {
        #expect(try OriginURL(validating: text).string == normalized)
    }

    @Test func partsAreExposed() throws {
        let url = try OriginURL(validating: "https://[::1]/a")
        #expect(url.scheme == "https")
        #expect(url.host == "::1")
        #expect(url.port == nil)
        #expect(url.effectivePort == 443)
    }

    @Test(arguments: [
        "ftp://example.com/", "file:///etc/passwd", "gopher://example.com/", "//example.com/", "example.com",
        "http://user:pw@example.com/", "http://@example.com/", "http:///path", "http://:80/", "http://example.com:0/",
        "http://example.com:65536/", "http://example.com:99999999/", "http://example.com:8o/", "http://exa mple.com/",
        "http://example.com/a b", "http://example.com/\r\nX: y", "http://example.com/\t", "http://example.com/\0",
        "http://[::1/", "http://[zz::1]/", "http://[fe80::1%25eth0]/", "http://ex%61mple.com/",
        "http://ex\u{E4}mple.com/", "javascript:alert(1)", "", "http://[::1]x/", "http://example.com:-1/",
        "dict://127.0.0.1:6379/", "http://example.com\u{7F}/", "http://08.0.0.1/", "http://1.2.3.4.5/",
        "http://4294967296/", "http://256.1.1.1:80/",
    ])
    func refusedURLsThrowInvalidURL(text: String) {
        #expect {
            try OriginURL(validating: text)
        } throws: { error in
            guard case .invalidURL = error as? OriginError else { return false }
            return true
        }
    }

    @Test func overlongURLIsRefused() {
        let long = "http://example.com/" + String(repeating: "a", count: 100)
        #expect(throws: OriginError.invalidURL(reason: "longer than 64 bytes")) {
            try OriginURL(validating: long, maximumLength: 64)
        }
        #expect((try? OriginURL(validating: long, maximumLength: 200)) != nil)
    }

    /// Found by Fuzz/run.sh URLCanonicalization: the canonicalizer took a 253-byte name with its trailing dot
    /// and this refused it. 253 bytes is the name's limit without that dot.
    @Test func aHostOf253BytesMayEndInADot() throws {
        let name = [63, 63, 63, 61].enumerated().map {
            String(repeating: "abcd".map(String.init)[$0.offset], count: $0.element)
        }
        .joined(separator: ".")
        #expect(name.utf8.count == 253)
        #expect(try OriginURL(validating: "http://\(name)./x").host == name + ".")
        #expect(try OriginURL(validating: "http://\(name)/x").host == name)
        #expect(throws: OriginError.invalidURL(reason: "host longer than 253 bytes")) {
            try OriginURL(validating: "http://a\(name)/x")
        }
        #expect(throws: OriginError.invalidURL(reason: "host longer than 253 bytes")) {
            try OriginURL(validating: "http://a\(name)./x")
        }
    }

    @Test func invalidURLMapsTo400() {
        #expect(OriginError.invalidURL(reason: "x").httpStatus == 400)
    }

    /// Found by Fuzz/run.sh URLCanonicalization: `#` followed by a combining mark is one Character, so the
    /// fragment was kept (and dropped only by a second validation). Delimiters are now Unicode scalars.
    @Test(arguments: [
        ("http://examplm/?a=1#\u{35E}b2ce=1&", "http://examplm/?a=1"),
        ("http://example.com/a#\u{301}", "http://example.com/a"),
        ("http://example.com/\u{301}x", "http://example.com/%CC%81x"),
        ("http://example.com?\u{301}q", "http://example.com/?%CC%81q"),
    ])
    func aDelimiterFollowedByACombiningMarkStillDelimits(input: String, expected: String) throws {
        let url = try OriginURL(validating: input)
        #expect(url.string == expected)
        #expect(url.host == url.host.lowercased())
        #expect(try OriginURL(validating: url.string) == url)
    }

    /// Found by Fuzz/run.sh URLCanonicalization: a URL within the bound whose non-ASCII bytes were
    /// escaped grew past it, and validating the result again refused it. The bound applies after escaping.
    @Test func aURLThatOutgrowsTheBoundOnceEscapedIsRefused() throws {
        let prefix = "http://example.com/"
        let grows =
            prefix + String(repeating: "\u{E9}", count: (OriginURL.defaultMaximumLength - prefix.utf8.count) / 2)
        #expect(grows.utf8.count <= OriginURL.defaultMaximumLength)
        #expect(throws: OriginError.self) { try OriginURL(validating: grows) }
        let fits = prefix + String(repeating: "\u{E9}", count: (OriginURL.defaultMaximumLength - prefix.utf8.count) / 6)
        let url = try OriginURL(validating: fits)
        #expect(try OriginURL(validating: url.string) == url)
    }
}
