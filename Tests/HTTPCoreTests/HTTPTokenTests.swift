import HTTPCore
import Testing

/// The two token grammars: RFC 9110's `token` (methods, field names) and RFC 8941's sf-token (Cache-Status
/// cache names, Structured Fields values), which differ in their first character and in `:` and `/`.
@Suite struct HTTPTokenTests {
    @Test(arguments: [
        ("GET", true), ("x-custom!#$%&'*+-.^_`|~9", true), ("", false), ("a b", false), ("a:b", false),
        ("a/b", false), ("(x)", false), ("é", false), ("a\u{7F}", false),
    ])
    func httpToken(_ text: String, _ valid: Bool) {
        #expect(HTTPToken.isValid(text) == valid)
    }

    @Test(arguments: [
        ("Larder", true), ("*", true), ("cdn:edge/1*", true), ("a!#$%&'*+-.^_`|~9", true), ("", false),
        ("1st", false), ("-a", false), ("a b", false), ("a;b", false), ("a=b", false), ("a\"b", false),
        ("aé", false), ("a\u{7F}", false),
    ])
    func structuredToken(_ text: String, _ valid: Bool) {
        #expect(HTTPToken.isStructuredToken(text) == valid)
    }
}
