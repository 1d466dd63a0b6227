import HTTPCore
import Testing

/// `%XX` and form decoding of query text (the `url` parameter of every `/fetch`).
@Suite struct PercentDecodingTests {
    @Test(arguments: [
        ("", ""),
        ("http://example.com/a", "http://example.com/a"),  // nothing to decode: the text itself
        ("http%3A%2F%2Fexample.com%2Fa%3Fq%3D1", "http://example.com/a?q=1"),
        ("%41%62%7e", "Ab~"),  // either case of hex
        ("caf%C3%A9", "café"),  // escapes that together are one UTF-8 character
        ("a+b%2Bc", "a+b+c"),  // without form rules a plus is a plus
        ("%00", "\u{0}"),
        ("%25", "%"),  // an escaped percent is not decoded twice
    ])
    func escapesAreDecoded(text: String, decoded: String) {
        #expect(text.percentDecoded() == decoded)
    }

    @Test(arguments: ["%", "%4", "a%4", "%zz", "%4g", "%g4", "%%41"])
    func aMalformedEscapeIsRefused(text: String) {
        #expect(text.percentDecoded() == nil)
        // Form decoding keeps the text as it came.
        #expect(text.formDecoded() == text)
    }

    @Test(arguments: ["%C3", "%E9", "%FF%FE", "a%C3%28"])
    func escapesThatAreNotUTF8AreRefused(text: String) {
        #expect(text.percentDecoded() == nil)
        #expect(text.formDecoded() == text)
    }

    @Test func formDecodingMakesAPlusASpace() {
        #expect("a+b%2Bc+".formDecoded() == "a b+c ")
        #expect("a+b".percentDecoded(plusIsSpace: true) == "a b")
        #expect("plain".formDecoded() == "plain")
    }

    /// Texts longer than a stack buffer holds decode the same way.
    @Test func aLongTextIsDecodedWhole() {
        let path = String(repeating: "seg%2F", count: 2000)
        let decoded = path.percentDecoded()
        #expect(decoded == String(repeating: "seg/", count: 2000))
        #expect((String(repeating: "x", count: 9000) + "%zz").percentDecoded() == nil)
    }
}
