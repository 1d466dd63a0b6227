import CachePolicy
import Testing

/// RFC 3986 §6 normalisation and Larder's refusals.
@Suite struct URLCanonicalizerTests {
    /// Inputs and their canonical forms.
    static let canonicalForms: [(input: String, canonical: String)] = [
        ("http://example.com", "http://example.com/"),  // §6.2.3: empty path is /
        ("HTTP://Example.COM/Path", "http://example.com/Path"),  // scheme and host case, path case kept
        ("https://example.com:443/", "https://example.com/"),  // default ports removed
        ("http://example.com:80/a", "http://example.com/a"),
        ("http://example.com:0080/a", "http://example.com/a"),
        ("http://example.com:/a", "http://example.com/a"),  // §6.2.3: empty port is the default
        ("https://example.com:80/", "https://example.com:80/"),  // not the default for https
        ("http://example.com:8080", "http://example.com:8080/"),
        ("http://example.com/a/./b/../c", "http://example.com/a/c"),  // §5.2.4
        ("http://example.com/a/b/c/./../../g", "http://example.com/a/g"),
        ("http://example.com/../../x", "http://example.com/x"),
        ("http://example.com/a/..", "http://example.com/"),
        ("http://example.com/a/b/..", "http://example.com/a/"),
        ("http://example.com/a/.", "http://example.com/a/"),
        ("http://example.com/a//b", "http://example.com/a//b"),  // empty segments are significant
        ("http://example.com/%2e%2E/x", "http://example.com/x"),  // escaped dots are decoded, then removed
        ("http://example.com/a%2Fb", "http://example.com/a%2Fb"),  // an escaped slash stays escaped
        ("http://example.com/%7euser/%41%62", "http://example.com/~user/Ab"),  // §6.2.2.2 unreserved decoded
        ("http://example.com/%3a%3F%c3%a9", "http://example.com/%3A%3F%C3%A9"),  // §6.2.2.1 hex upper-cased
        ("http://example.com/100%", "http://example.com/100%"),  // a stray % is kept as sent
        ("http://example.com/%zz", "http://example.com/%zz"),
        ("http://example.com/café", "http://example.com/caf%C3%A9"),  // raw UTF-8 is escaped
        ("http://example.com/a|b{c}\"<>^`\\", "http://example.com/a%7Cb%7Bc%7D%22%3C%3E%5E%60%5C"),
        ("http://example.com/p?b=2&a=1", "http://example.com/p?b=2&a=1"),  // query order kept
        ("http://example.com/p?q=%7e%2f+x", "http://example.com/p?q=~%2F+x"),
        ("http://example.com/p?", "http://example.com/p?"),  // §6.2.3: an empty query is kept
        ("http://example.com/p?a=1#frag", "http://example.com/p?a=1"),  // fragment dropped
        ("http://example.com#frag", "http://example.com/"),
        ("http://example.com?x=1", "http://example.com/?x=1"),
        ("http://example.com/a?x=../..", "http://example.com/a?x=../.."),  // dots in the query untouched
        ("http://192.168.0.1:8080/", "http://192.168.0.1:8080/"),  // addresses are the SSRF guard's job
        // WHATWG URL §3.5: every spelling of an IPv4 address is one key, in dotted decimal.
        ("http://127.0.0.1./", "http://127.0.0.1/"),
        ("http://0x7F.1/", "http://127.0.0.1/"),
        ("http://2130706433:8080/", "http://127.0.0.1:8080/"),
        ("http://[2001:DB8::1]:443/", "http://[2001:db8::1]:443/"),
        ("https://[::1]:443/x", "https://[::1]/x"),
        ("http://[::ffff:127.0.0.1]/", "http://[::ffff:127.0.0.1]/"),
        ("http://my_host.example.com./", "http://my_host.example.com./"),  // trailing dot kept
        ("http://xn--caf-dma.example/", "http://xn--caf-dma.example/"),  // A-labels are ASCII
        // Dots that are not dot segments, and ports and hosts one byte from canonical.
        ("http://example.com/a/.hidden/..b/c./d..", "http://example.com/a/.hidden/..b/c./d.."),
        ("http://example.com/.", "http://example.com/"), ("http://example.com/..", "http://example.com/"),
        ("http://example.com:08080/x", "http://example.com:8080/x"), ("http://example.com:/", "http://example.com/"),
        ("http://exAmple.com/", "http://example.com/"), ("http://[::A]:8080/", "http://[::a]:8080/"),
        ("http://example.com/p#", "http://example.com/p"), ("http://example.com/p?#", "http://example.com/p?"),
    ]

    @Test(arguments: canonicalForms)
    func urlsAreCanonicalised(input: String, expected: String) throws {
        #expect(try URLCanonicalizer().canonicalize(input).get().string == expected)
    }

    /// A text already canonical is kept as the canonical string rather than rebuilt from its parts: the string
    /// must still be exactly the parts joined, for every input above and for its canonical form given again.
    @Test func theStringIsAlwaysThePartsJoined() throws {
        for (input, canonical) in Self.canonicalForms {
            for text in [input, canonical] {
                let url = try URLCanonicalizer().canonicalize(text).get()
                #expect(url.string == url.scheme + "://" + url.authority + url.requestTarget, "\(text)")
                #expect(url.string == canonical, "\(text)")
            }
        }
    }

    static let tooLong = "http://example.com/" + String(repeating: "a", count: 8192)

    /// A text already canonical is kept as the string, not rebuilt: it shares the caller's storage (a URL
    /// longer than a small string's 15 bytes, so that it has storage to share). A rewritten text does not.
    @Test func aCanonicalTextIsKeptNotRebuilt() throws {
        func storage(_ text: String) -> UnsafePointer<UInt8>? {
            var text = text
            return text.withUTF8 { $0.baseAddress }
        }
        let text = "https://images.example.com/photos/2026/a.jpg?w=640"
        #expect(storage(try URLCanonicalizer().canonicalize(text).get().string) == storage(text))
        let rewritten = "https://Images.example.com/photos/2026/a.jpg?w=640"
        #expect(storage(try URLCanonicalizer().canonicalize(rewritten).get().string) != storage(rewritten))
    }

    @Test(
        arguments: [
            ("", URLRejection.notAbsolute),
            ("example.com/path", .notAbsolute),
            ("/relative/path", .notAbsolute),
            ("http:/example.com/", .notAbsolute),
            ("http:example.com", .notAbsolute),
            ("1http://example.com/", .notAbsolute),
            ("ftp://example.com/", .unsupportedScheme("ftp")),
            ("file:///etc/passwd", .unsupportedScheme("file")),
            ("javascript://alert(1)", .unsupportedScheme("javascript")),
            ("gopher://127.0.0.1:25/", .unsupportedScheme("gopher")),
            ("http://user:pass@example.com/", .userInfo),
            ("http://@example.com/", .userInfo),
            ("http://good.com@evil.com/", .userInfo),
            ("http://evil.com\\@good.com/", .userInfo),
            ("http:///path", .emptyHost),
            ("http://:80/", .emptyHost),
            ("http://?x", .emptyHost),
            ("http://café.example/", .nonASCIIHost),
            ("http://exa mple.com/", .forbiddenCharacter(offset: 10)),
            ("http://example.com/a b", .forbiddenCharacter(offset: 20)),
            ("http://example.com/\r\nX-Injected: 1", .forbiddenCharacter(offset: 19)),
            ("http://example.com/\u{0}", .forbiddenCharacter(offset: 19)),
            ("http://example.com/\u{7F}", .forbiddenCharacter(offset: 19)),
            ("\thttp://example.com/", .forbiddenCharacter(offset: 0)),
            ("http://exa%6Dple.com/", .invalidHost("exa%6Dple.com")),
            ("http://example..com/", .invalidHost("example..com")),
            ("http://.example.com/", .invalidHost(".example.com")),
            ("http://exa<mple.com/", .invalidHost("exa<mple.com")),
            (
                "http://" + String(repeating: "a", count: 64) + ".com/",
                .invalidHost(String(repeating: "a", count: 64) + ".com")
            ),
            ("http://[::1/", .invalidHost("[::1")),  // the authority ends at the first /
            ("http://[fe80::1%25eth0]/", .invalidHost("[fe80::1%25eth0]")),
            ("http://[v1.fe]/", .invalidHost("[v1.fe]")),
            ("http://[::1]x/", .invalidHost("[::1]x")),
            ("http://[1.2.3.4]/", .invalidHost("[1.2.3.4]")),
            ("http://08.0.0.1/", .invalidHost("08.0.0.1")),
            ("http://1.2.3.4.5/", .invalidHost("1.2.3.4.5")),
            ("http://4294967296/", .invalidHost("4294967296")),
            ("http://example.com:0/", .badPort("0")),
            ("http://example.com:65536/", .badPort("65536")),
            ("http://example.com:99999999999999999999/", .badPort("99999999999999999999")),
            ("http://example.com:-1/", .badPort("-1")),
            ("http://example.com:8o/", .badPort("8o")),
            ("http://example.com:80:80/", .badPort("80:80")),
            (tooLong, .tooLong(bytes: 8211)),
        ] as [(String, URLRejection)])
    func hostileAndBrokenURLsAreRejected(input: String, expected: URLRejection) {
        let result = URLCanonicalizer().canonicalize(input)
        #expect(throws: expected) { try result.get() }
    }

    @Test func anURLAtTheLimitIsAccepted() {
        let url = "http://example.com/" + String(repeating: "a", count: 8192 - 19)
        #expect((try? URLCanonicalizer().canonicalize(url).get())?.string == url)
    }

    @Test(
        arguments: [
            (URLCanonicalizer.Options(ignoreQuery: true), "http://e.test/p?a=1&b=2#f", "http://e.test/p"),
            (
                URLCanonicalizer.Options(dropParams: [GlobPattern("utm_*"), GlobPattern("fbclid")]),
                "http://e.test/p?utm_source=x&id=7&fbclid=abc&utm_medium=y&z", "http://e.test/p?id=7&z"
            ),
            (
                URLCanonicalizer.Options(dropParams: [GlobPattern("utm_*")]), "http://e.test/p?utm_a=1&utm_b=2",
                "http://e.test/p"
            ),
            (
                URLCanonicalizer.Options(dropParams: [GlobPattern("utm_*")]), "http://e.test/p?utm%5Fa=1&b=2",
                "http://e.test/p?b=2"
            ),
            (
                URLCanonicalizer.Options(dropParams: [GlobPattern("a")]), "http://e.test/p?b=1&a&a=2",
                "http://e.test/p?b=1"
            ),
            (URLCanonicalizer.Options(dropParams: [GlobPattern("x")]), "http://e.test/p", "http://e.test/p"),
        ] as [(URLCanonicalizer.Options, String, String)])
    func filterOptionsShapeTheQuery(options: URLCanonicalizer.Options, input: String, expected: String) throws {
        #expect(try URLCanonicalizer(options: options).canonicalize(input).get().string == expected)
    }

    @Test func partsAreExposedForTheFetcher() throws {
        let url = try URLCanonicalizer().canonicalize("HTTPS://Img.Example.com:8443/a/../b.png?x=1#top").get()
        #expect(url.scheme == "https")
        #expect(url.host == "img.example.com")
        #expect(url.port == 8443)
        #expect(url.effectivePort == 8443)
        #expect(url.authority == "img.example.com:8443")
        #expect(url.path == "/b.png")
        #expect(url.query == "x=1")
        #expect(url.requestTarget == "/b.png?x=1")
        let plain = try URLCanonicalizer().canonicalize("http://e.test").get()
        #expect(plain.effectivePort == 80)
        #expect(plain.authority == "e.test")
    }

    @Test func canonicalisingTwiceChangesNothing() throws {
        for input in ["http://E.test/a/./b/%7e%41?q=%2f#x", "https://[::1]:443/%zz/..", "http://e.test/café?é=1"] {
            let once = try URLCanonicalizer().canonicalize(input).get().string
            #expect(try URLCanonicalizer().canonicalize(once).get().string == once)
        }
    }

    /// Found by Fuzz/run.sh URLCanonicalization: `[2001:d:db8:]` passed the loose literal check, got a
    /// cache key, and only the origin client refused it. IPv6 literals now follow RFC 3986 §3.2.2.
    @Test(arguments: [
        ("http://[2001:d:db8:]:8//$x", false), ("http://[2001:db8:]/", false), ("http://[:2001:db8::1]/", false),
        ("http://[2001:db8:::1]/", false), ("http://[1::2::3]/", false), ("http://[1:2:3:4:5:6:7]/", false),
        ("http://[1:2:3:4:5:6:7:8:9]/", false), ("http://[12345::1]/", false), ("http://[::ffff:1.2.3]/", false),
        ("http://[::ffff:1.2.3.256]/", false), ("http://[::ffff:01.2.3.4]/", false), ("http://[1.2.3.4::]/", false),
        ("http://[1:2:3:4:5:6:7::8]/", false), ("http://[::]/", true), ("http://[::1]/", true),
        ("http://[1:2:3:4:5:6:7:8]/", true), ("http://[1:2:3:4:5:6::8]/", true), ("http://[1::]/", true),
        ("http://[::ffff:192.0.2.1]/", true), ("http://[1:2:3:4:5:6:1.2.3.4]/", true), ("http://[ABCD::ef]/", true),
    ])
    func ipv6LiteralsFollowTheRFC3986Grammar(input: String, accepted: Bool) {
        let result = URLCanonicalizer().canonicalize(input)
        if accepted {
            #expect((try? result.get()) != nil, "\(input)")
        } else {
            #expect(throws: URLRejection.self) { try result.get() }
        }
    }

    /// Found by Fuzz/run.sh URLCanonicalization: decoding `%44` after a stray `%e` made `%eD`, a new escape
    /// that the next canonicalization upper-cased. A decoded hex digit after a stray `%` stays escaped.
    @Test(arguments: [
        ("http://a/%e%44", "http://a/%e%44"), ("http://a/%%341", "http://a/%%341"), ("http://a/%%41", "http://a/%%41"),
        ("http://a/%4%31?%%32%33", "http://a/%4%31?%%323"), ("http://a/%%7e%67", "http://a/%~g"),
        ("http://a/%44%45", "http://a/DE"), ("http://a/x%e%2f", "http://a/x%e%2F"),
        (
            "https://shxa2le//shx%%%%e%%%%%%EF%BF%BD%%%le&Sequencesh%%%%%%%%%e%44444444444444%%%%ample",
            "https://shxa2le//shx%%%%e%%%%%%EF%BF%BD%%%le&Sequencesh%%%%%%%%%e%44444444444444%%%%ample"
        ),
    ])
    func aDecodedHexDigitNeverCompletesAStrayPercent(input: String, canonical: String) throws {
        let once = try URLCanonicalizer().canonicalize(input).get().string
        #expect(once == canonical)
        #expect(try URLCanonicalizer().canonicalize(once).get().string == once)
    }

    /// Found by Fuzz/run.sh URLCanonicalization: a URL under the limit whose non-ASCII bytes were escaped
    /// grew past it, so its canonical form was refused when canonicalized again. The limit now applies
    /// to the canonical form too.
    @Test func aURLWhoseCanonicalFormOutgrowsTheLimitIsRefused() throws {
        let prefix = "http://example.com/"
        let grows =
            prefix + String(repeating: "\u{E9}", count: (URLCanonicalizer.maximumLength - prefix.utf8.count) / 2)
        #expect(grows.utf8.count <= URLCanonicalizer.maximumLength)
        #expect(throws: URLRejection.tooLong(bytes: prefix.utf8.count + 6 * 4086)) {
            try URLCanonicalizer().canonicalize(grows).get()
        }
        // Just within the limit once escaped: accepted, and its own canonical form.
        let fits = prefix + String(repeating: "\u{E9}", count: (URLCanonicalizer.maximumLength - prefix.utf8.count) / 6)
        let canonical = try URLCanonicalizer().canonicalize(fits).get().string
        #expect(canonical.utf8.count <= URLCanonicalizer.maximumLength)
        #expect(try URLCanonicalizer().canonicalize(canonical).get().string == canonical)
    }
}
