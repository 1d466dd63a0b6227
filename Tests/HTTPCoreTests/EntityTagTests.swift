import HTTPCore
import Testing

/// Entity tags and their conditions (RFC 9110 §8.8.3, §13.1.1–13.1.2).
@Suite struct EntityTagTests {
    static let single: [(String, String?, Bool)] = [
        ("\"xyz\"", "xyz", false),
        ("W/\"xyz\"", "xyz", true),
        ("  \"xyz\"\t", "xyz", false),
        ("\"\"", "", false),
        ("\"a,b\"", "a,b", false),
        ("\"a\\b\"", "a\\b", false),  // backslash is an ordinary etagc
        ("\"caf\u{E9}\"", "caf\u{E9}", false),  // obs-text
        ("w/\"xyz\"", nil, false),  // W/ is case-sensitive
        ("xyz", nil, false),
        ("\"xyz", nil, false),
        ("\"x y\"", nil, false),
        ("\"x\"y\"", nil, false),
        ("\"x\" \"y\"", nil, false),
        ("W/ \"x\"", nil, false),
        ("\"x\u{1}\"", nil, false),
        ("*", nil, false),
        ("", nil, false),
    ]

    @Test(arguments: single)
    func entityTagIsParsed(value: String, opaque: String?, weak: Bool) {
        let tag = EntityTag(parsing: value)
        #expect(tag?.opaqueTag == opaque)
        if let tag {
            #expect(tag.isWeak == weak)
            #expect(EntityTag(parsing: tag.description) == tag)
        }
    }

    static func tag(_ text: String) -> EntityTag { EntityTag(parsing: text)! }

    /// RFC 9110 §8.8.3.2's table.
    static let comparisons: [(String, String, Bool, Bool)] = [
        ("W/\"1\"", "W/\"1\"", false, true),
        ("W/\"1\"", "W/\"2\"", false, false),
        ("W/\"1\"", "\"1\"", false, true),
        ("\"1\"", "\"1\"", true, true),
        ("\"1\"", "\"2\"", false, false),
    ]

    @Test(arguments: comparisons)
    func strongAndWeakComparisonFollowTheTable(lhs: String, rhs: String, strong: Bool, weak: Bool) {
        #expect(Self.tag(lhs).matchesStrongly(Self.tag(rhs)) == strong)
        #expect(Self.tag(lhs).matchesWeakly(Self.tag(rhs)) == weak)
        #expect(Self.tag(rhs).matchesStrongly(Self.tag(lhs)) == strong)
    }

    static let conditions: [([String], EntityTag.Condition?)] = [
        (["*"], .any),
        ([" * "], .any),
        (["\"a\""], .tags([tag("\"a\"")])),
        (["\"a\", W/\"b\""], .tags([tag("\"a\""), tag("W/\"b\"")])),
        (["\"a\",W/\"b\",,"], .tags([tag("\"a\""), tag("W/\"b\"")])),
        (["\"a,b\", \"c\""], .tags([tag("\"a,b\""), tag("\"c\"")])),
        (["\"a\"", "\"b\""], .tags([tag("\"a\""), tag("\"b\"")])),
        ([], nil),
        ([""], nil),
        (["*, \"a\""], nil),
        (["*", "\"a\""], nil),
        (["\"a\" \"b\""], nil),
        (["a"], nil),
        (["\"a\", b"], nil),
        (["**"], nil),
    ]

    @Test(arguments: conditions)
    func conditionListIsParsed(lines: [String], condition: EntityTag.Condition?) {
        #expect(EntityTag.Condition(fieldValues: lines) == condition)
    }

    /// (If-Match value, current tag, has representation, passes)
    static let ifMatch: [(String, String?, Bool, Bool)] = [
        ("*", "\"1\"", true, true),
        ("*", nil, true, true),
        ("*", nil, false, false),
        ("\"1\"", "\"1\"", true, true),
        ("\"0\", \"1\"", "\"1\"", true, true),
        ("\"1\"", "W/\"1\"", true, false),  // strong comparison
        ("W/\"1\"", "\"1\"", true, false),
        ("\"2\"", "\"1\"", true, false),
        ("\"1\"", nil, true, false),
        ("\"1\"", "\"1\"", false, false),
    ]

    @Test(arguments: ifMatch)
    func ifMatchUsesStrongComparison(value: String, current: String?, exists: Bool, passes: Bool) throws {
        let condition = try #require(EntityTag.Condition(fieldValues: [value]))
        #expect(condition.ifMatchPasses(current: current.map(Self.tag), hasRepresentation: exists) == passes)
    }

    /// (If-None-Match value, current tag, has representation, passes)
    static let ifNoneMatch: [(String, String?, Bool, Bool)] = [
        ("*", "\"1\"", true, false),
        ("*", nil, false, true),
        ("\"1\"", "\"1\"", true, false),
        ("\"1\"", "W/\"1\"", true, false),  // weak comparison
        ("W/\"1\"", "\"1\"", true, false),
        ("\"0\", W/\"1\"", "\"1\"", true, false),
        ("\"2\"", "\"1\"", true, true),
        ("\"1\"", nil, true, true),
        ("\"1\"", "\"1\"", false, true),
    ]

    @Test(arguments: ifNoneMatch)
    func ifNoneMatchUsesWeakComparison(value: String, current: String?, exists: Bool, passes: Bool) throws {
        let condition = try #require(EntityTag.Condition(fieldValues: [value]))
        #expect(condition.ifNoneMatchPasses(current: current.map(Self.tag), hasRepresentation: exists) == passes)
    }

    @Test func conditionIsReadFromHeaders() {
        let headers = HTTPHeaders([("If-None-Match", "\"a\""), ("if-none-match", "W/\"b\"")])
        #expect(
            EntityTag.Condition(field: "If-None-Match", in: headers) == .tags([Self.tag("\"a\""), Self.tag("W/\"b\"")]))
        #expect(EntityTag.Condition(field: "If-Match", in: headers) == nil)
    }

    @Test func tagsCompareByteForByteNotByUnicodeEquivalence() throws {
        // "é" precomposed and as "e" plus a combining accent are equal Strings but different octets.
        let composed = try #require(EntityTag(opaqueTag: "caf\u{E9}"))
        let decomposed = try #require(EntityTag(opaqueTag: "cafe\u{301}"))
        #expect(composed != decomposed)
        #expect(!composed.matchesStrongly(decomposed))
        #expect(!composed.matchesWeakly(decomposed))
        #expect(Set([composed, decomposed]).count == 2)
        #expect(EntityTag(opaqueTag: "caf\u{E9}") == composed)
    }

    @Test func tagsAreBuiltOnlyFromValidOpaqueText() {
        #expect(EntityTag(opaqueTag: "abc", isWeak: true)?.description == "W/\"abc\"")
        #expect(EntityTag(opaqueTag: "a\"b") == nil)
        #expect(EntityTag(opaqueTag: "a b") == nil)
    }
}
