import CachePolicy
import Testing

/// The `*` / `?` matcher behind `dropParams` and host patterns.
@Suite struct GlobPatternTests {
    @Test(
        arguments: [
            ("utm_*", "utm_source", true), ("utm_*", "utm_", true), ("utm_*", "xutm_source", false),
            ("fbclid", "fbclid", true), ("fbclid", "fbclid2", false), ("fbclid", "FBCLID", false),
            ("?", "a", true), ("?", "", false), ("?", "ab", false), ("a?c", "abc", true), ("a?c", "ac", false),
            ("*", "", true), ("*", "anything", true), ("", "", true), ("", "a", false),
            ("*.example.com", "img.example.com", true), ("*.example.com", "example.com", false),
            ("a*b*c", "aXXbYYc", true), ("a*b*c", "aXXbYY", false), ("a*b", "abab", true),
            ("*a*", "bab", true), ("**", "x", true), ("é?", "éa", true), ("?", "é", true),
            ("a*a*a*a*a*a*a*a*b", String(repeating: "a", count: 200), false),  // no exponential backtracking
        ] as [(String, String, Bool)])
    func wildcardsMatchWholeText(pattern: String, text: String, expected: Bool) {
        #expect(GlobPattern(pattern).matches(text) == expected)
    }

    @Test func asciiCaseCanBeIgnored() {
        #expect(GlobPattern("*.Example.COM", ignoresASCIICase: true).matches("img.example.com"))
        #expect(!GlobPattern("*.Example.COM").matches("img.example.com"))
    }
}
