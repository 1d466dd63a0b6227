import HTTPCore
import Testing

@Suite struct HTTPHeadersTests {
    @Test(arguments: [
        ("Connection", true), ("TE", true), ("te", true), ("Trailers", false), ("", false),
        // Only ASCII letters fold: U+212A KELVIN SIGN is not "k" in a field name (RFC 9110 §5.1).
        ("\u{212A}eep-Alive", false), ("keep-alive", true),
    ])
    func membershipFoldsOnlyASCIICase(name: String, expected: Bool) {
        #expect(name.isAmong(["connection", "keep-alive", "te"]) == expected)
    }

    @Test func lookupIgnoresCaseAndKeepsOrder() {
        var headers = HTTPHeaders([("Accept", "a"), ("X-One", "1"), ("accept", "b")])
        #expect(headers["ACCEPT"] == "a")
        #expect(headers.values(for: "accept") == ["a", "b"])
        headers.replaceOrAdd(name: "Accept", value: "c")
        #expect(headers.values(for: "Accept") == ["c"])
        #expect(headers.count == 2)
    }

    /// Lookups compare a signature of the name (length, first 8 bytes folded) before the bytes: names
    /// that agree on it but differ later, or differ only in case anywhere, must still be told right.
    @Test(arguments: [
        ("Content-Type", "content-type", true), ("Content-Type", "CONTENT-TYPE", true),
        ("Content-Type", "Content-Typf", false), ("Content-Type", "Content-Typ", false),
        ("Location", "LOCATION", true), ("Location", "Locatioo", false), ("ETag", "etag", true),
        ("X-[", "x-{", false), ("X-@", "x-`", false),
        ("Access-Control-Allow-Origin", "access-control-allow-originn", false),
        ("Access-Control-Allow-Origin", "ACCESS-CONTROL-ALLOW-ORIGIN", true), ("K", "\u{212A}", false), ("", "", true),
    ])
    func everyLookupFoldsOnlyASCIICase(stored: String, asked: String, matches: Bool) {
        var headers = HTTPHeaders([("Other", "0"), (stored, "1")])
        #expect((headers[asked] == "1") == matches)
        #expect(headers.values(for: asked) == (matches ? ["1"] : []))
        #expect(headers.contains(asked) == matches)
        headers.remove(names: ["nothing", asked])
        #expect(headers.count == (matches ? 1 : 2))
    }

    @Test func listValuesSplitOnCommasAndDropEmpties() {
        let headers = HTTPHeaders([("Cache-Control", "max-age=5, , no-cache"), ("cache-control", "public")])
        #expect(headers.listValues(for: "Cache-Control") == ["max-age=5", "no-cache", "public"])
    }

    /// A value without a comma is one member (no split), still trimmed, and dropped when empty.
    @Test(arguments: [
        ([" keep-alive \t"], ["keep-alive"]), (["  "], []), ([""], []), (["close", " a , b"], ["close", "a", "b"]),
        (["Upgrade", ""], ["Upgrade"]),
    ])
    func listValuesOfOneMemberAreTrimmedAndEmptiesDropped(values: [String], members: [String]) {
        let headers = HTTPHeaders(values.map { ("Connection", $0) } + [("Via", "x, y")])
        #expect(headers.listValues(for: "connection") == members)
    }

    /// What `Connection` names goes with the fixed list, its members read from the values' bytes: trimmed, in
    /// any case, over several lines and around empty members. A member with a listed name's length and first
    /// 8 bytes (`Proxy-Authxxxxxxxx`, `Proxy-Authenticate`) is a field of its own and goes too.
    @Test func removeHopByHopRemovesWhatConnectionNames() {
        var headers = HTTPHeaders([
            ("Connection", " keep-alive ,\tX-Trace ,, "), ("connection", "PROXY-AUTHXXXXXXXX"), ("Keep-Alive", "5"),
            ("x-trace", "1"), ("Proxy-Authxxxxxxxx", "2"), ("Proxy-Authenticate", "Basic"), ("X-Kept", "3"),
        ])
        headers.removeHopByHop(FieldNames(["Connection", "Keep-Alive", "Proxy-Authenticate"]))
        #expect(headers.map(\.name) == ["X-Kept"])
    }

    @Test func aConnectionNamingOnlyListedFieldsRemovesOnlyThose() {
        var headers = HTTPHeaders([
            ("Connection", "KEEP-ALIVE, close"), ("X-A", "1"), ("Keep-Alive", "5"), ("Close", "c"),
        ])
        headers.removeHopByHop(FieldNames(["Connection", "Keep-Alive"]))
        #expect(headers.map(\.name) == ["X-A"])
        var plain = HTTPHeaders([("X-A", "1"), ("Keep-Alive", "5")])
        plain.removeHopByHop(FieldNames(["Connection", "Keep-Alive"]))
        #expect(plain.map(\.name) == ["X-A"])
    }

    @Test(arguments: [
        (" \t a b \t ", "a b"), ("\t\t", ""), ("", ""), ("x", "x"), (" caf\u{E9}\u{301} ", "caf\u{E9}\u{301}"),
        ("\u{A0}x\u{A0}", "\u{A0}x\u{A0}"), ("a\r", "a\r"),
    ])
    func trimmingRemovesOnlySpacesAndTabsAtTheEnds(text: String, trimmed: String) {
        // OWS is SP and HTAB (RFC 9110 §5.6.3): a no-break space or a CR is content.
        #expect(Substring(text).trimmingHTTPWhitespace() == trimmed)
        #expect(Substring("[\(text)]").dropFirst().dropLast().trimmingHTTPWhitespace() == trimmed)
    }

    @Test func problemJSONEscapesControlCharacters() {
        let problem = ProblemDetails(type: "t", title: "T", status: 400, detail: "a\"b\r\n\u{0}<")
        #expect(problem.json == #"{"type":"t","title":"T","status":400,"detail":"a\"b\r\n\u0000<"}"#)
    }

    @Test(arguments: [
        ("/fetch?url=http%3A%2F%2Fa.test%2Fx%3Fy%3D1&z", "/fetch", "http://a.test/x?y=1"),
        ("http://h.test/p?url=a+b", "/p", "a b"),
        ("http://h.test?url=1", "/", "1"),
    ])
    func targetIsSplitIntoPathAndDecodedQuery(target: String, path: String, url: String) {
        let request = HTTPRequest(method: .get, target: target)
        #expect(request.path == path)
        #expect(request.queryParameter("url") == url)
    }
}

/// Field lines made from bytes (the request parser's and the store's path) and the one-pass copy that
/// leaves names out.
@Suite struct HTTPHeadersBytesTests {
    private static func field(_ name: [UInt8], _ value: [UInt8]) -> HTTPHeaders.Field {
        name.withUnsafeBytes { nameBytes in value.withUnsafeBytes { HTTPHeaders.Field(name: nameBytes, value: $0) } }
    }

    /// The name's signature folds eight bytes at once: every pair of ASCII bytes, at the first and at the
    /// eighth position, must match exactly when they are equal or the same letter in another case (the
    /// bytes around the letters, `@` `[` `` ` `` `{`, must not fold).
    @Test(arguments: [0, 7])
    func bytesFoldOnlyASCIILetters(position: Int) {
        for stored in UInt8(0)...0x7F {
            var storedName = Array("abcdefghij".utf8)
            storedName[position] = stored
            let headers = HTTPHeaders(fields: [Self.field(storedName, Array("v".utf8))])
            for asked in UInt8(0)...0x7F {
                var askedName = storedName
                askedName[position] = asked
                let sameLetter = stored | 0x20 == asked | 0x20 && (0x61...0x7A).contains(stored | 0x20)
                let expected = stored == asked || sameLetter
                let found = headers[String(decoding: askedName, as: UTF8.self)] == "v"
                if found != expected {
                    Issue.record("stored byte \(stored), asked byte \(asked) at \(position): found \(found)")
                    return
                }
            }
        }
    }

    @Test(arguments: ["", "ETag", "Content-Type", "X-A", "Access-Control-Allow-Origin"])
    func aFieldFromBytesEqualsOneFromStrings(name: String) {
        let fromBytes = Self.field(Array(name.utf8), Array(" a: b ".utf8))
        #expect(fromBytes == HTTPHeaders.Field(name: name, value: " a: b "))
        #expect(HTTPHeaders(fields: [fromBytes])[name.uppercased()] == " a: b ")
    }

    /// A name whose bytes are not UTF-8 is repaired; it is then found by its repaired spelling, as a
    /// name made from a string is.
    @Test func aRepairedNameIsFoundByItsRepairedSpelling() {
        let headers = HTTPHeaders(fields: [Self.field([0x58, 0xFF], Array("v".utf8))])
        #expect(headers["X\u{FFFD}"] == "v")
        #expect(headers.values(for: "x\u{FFFD}") == ["v"])
    }

    @Test func replacingDropsEveryLineOfTheReplacementsNamesAndAppendsThem() {
        var headers = HTTPHeaders([("Age", "9"), ("A", "1"), ("x-cache", "HIT"), ("B", "2"), ("AGE", "10")])
        headers.replace(with: HTTPHeaders([("Age", "0"), ("X-Cache", "MISS"), ("Cache-Status", "s")]))
        #expect(
            headers
                == HTTPHeaders([("A", "1"), ("B", "2"), ("Age", "0"), ("X-Cache", "MISS"), ("Cache-Status", "s")]))
        var untouched = HTTPHeaders([("A", "1")])
        untouched.replace(with: HTTPHeaders([("Age-Long-Name", "0")]))
        #expect(untouched == HTTPHeaders([("A", "1"), ("Age-Long-Name", "0")]))
    }

    @Test func removingLeavesOutEveryLineOfTheNamesAndKeepsTheOrder() {
        let headers = HTTPHeaders([
            ("A", "1"), ("Content-Length", "5"), ("B", "2"), ("content-length", "6"), ("KEEP-ALIVE", "x"), ("C", "3"),
        ])
        let kept = headers.removing(FieldNames(["Content-Length", "Keep-Alive"]), reservingExtra: 4)
        #expect(kept == HTTPHeaders([("A", "1"), ("B", "2"), ("C", "3")]))
        #expect(headers.count == 6)
        #expect(headers.removing(FieldNames(["Nothing"]), reservingExtra: 0) == headers)
    }

    /// A list passes over lines by their names' lengths first: names of the same length, of 63 bytes and
    /// longer (one bit for all), and of a length no name has must each still be told apart by their bytes.
    @Test func removalByNameListTellsNamesOfEveryLengthApart() {
        let long = String(repeating: "x", count: 70)
        let longer = String(repeating: "x", count: 90)
        let sameLengthAsLong = String(repeating: "y", count: 70)
        var headers = HTTPHeaders([
            ("Upgrade", "1"), ("Trailer", "2"), (long.uppercased(), "3"), (longer, "4"), (sameLengthAsLong, "5"),
            ("Via", "6"), ("TE", "7"),
        ])
        headers.remove(FieldNames(["upgrade", long, "te"]))
        #expect(headers == HTTPHeaders([("Trailer", "2"), (longer, "4"), (sameLengthAsLong, "5"), ("Via", "6")]))
        #expect(FieldNames([longer]).contains(longer.uppercased()))
        #expect(!FieldNames([longer]).contains(long))
    }
}
