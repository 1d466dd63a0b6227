import HTTPCore
import Testing

/// RFC 8941 §4.2.2 dictionaries, the syntax of RFC 9213's targeted cache-control fields: what parses, to
/// what, and what fails the whole field.
@Suite struct StructuredDictionaryTests {
    typealias Value = StructuredDictionary.Value

    struct Valid: CustomTestStringConvertible, Sendable {
        var lines: [String]
        var members: [(String, Value)]
        var testDescription: String { lines.joined(separator: " | ") }
    }

    static let valid: [Valid] = [
        Valid(lines: ["max-age=60"], members: [("max-age", .integer(60))]),
        Valid(lines: ["no-store"], members: [("no-store", .boolean(true))]),
        Valid(lines: ["no-store=?0"], members: [("no-store", .boolean(false))]),
        Valid(lines: ["a=?1, b=-7"], members: [("a", .boolean(true)), ("b", .integer(-7))]),
        Valid(lines: ["private=\"set-cookie, x\""], members: [("private", .string("set-cookie, x"))]),
        Valid(lines: ["s=\"a\\\"b\\\\c\""], members: [("s", .string("a\"b\\c"))]),
        Valid(lines: ["t=foo/bar:1"], members: [("t", .token("foo/bar:1"))]),
        Valid(lines: ["d=1.25"], members: [("d", .decimal("1.25"))]),
        Valid(lines: ["b=:aGk=:"], members: [("b", .byteSequence("aGk="))]),
        Valid(lines: ["l=(1 \"x\" y);p=1"], members: [("l", .innerList([.integer(1), .string("x"), .token("y")]))]),
        Valid(lines: ["foobar, max-age=3600"], members: [("foobar", .boolean(true)), ("max-age", .integer(3600))]),
        // Parameters are checked and dropped.
        Valid(lines: ["max-age=60;unit=s;x"], members: [("max-age", .integer(60))]),
        // Lines join with commas; a later key takes the value in the first one's place.
        Valid(
            lines: ["max-age=1, no-cache", "max-age=2"],
            members: [("max-age", .integer(2)), ("no-cache", .boolean(true))]),
        Valid(lines: ["  a=1  ,\tb  "], members: [("a", .integer(1)), ("b", .boolean(true))]),
        Valid(lines: ["*k.1_-=999999999999999"], members: [("*k.1_-", .integer(999_999_999_999_999))]),
    ]

    @Test(arguments: valid)
    func validDictionaryParses(_ testCase: Valid) throws {
        let dictionary = try #require(StructuredDictionary(fieldValues: testCase.lines))
        #expect(dictionary.members.map(\.key) == testCase.members.map(\.0))
        #expect(dictionary.members.map(\.value) == testCase.members.map(\.1))
    }

    static let invalid: [String] = [
        "max-age =100",  // space before `=` ends the member, then `=` is not a comma
        "max-age= 100",  // a bare item cannot start with a space
        "max-age=10000, &&&&&",  // not a key
        "MaX-aGe=3600",  // keys are lower case
        "a=1,",  // trailing comma
        "a=1,,b",  // empty member
        "a=1 b=2",  // members need commas
        "a=1234567890123456",  // 16 digits
        "a=1.2345",  // 4 fraction digits
        "a=1.",  // no fraction digits
        "a=1234567890123.5",  // 13 integer digits in a decimal
        "a=\"unterminated",
        "a=\"bad\\escape\"",
        "a=\"tab\there\"",
        "a=?2",
        "a=:not base64!:",
        "a=(1 2",
        "a=(1,2)",
        "a=1;",  // a parameter without a key
        "a=@1",  // RFC 9651 dates are not RFC 8941
        "a=é",
    ]

    @Test(arguments: invalid)
    func invalidDictionaryIsRejectedWhole(_ line: String) {
        #expect(StructuredDictionary(fieldValues: [line]) == nil)
    }

    @Test func emptyFieldIsAnEmptyDictionary() throws {
        #expect(try #require(StructuredDictionary(fieldValues: ["  "])).members.isEmpty)
        #expect(try #require(StructuredDictionary(fieldValues: [])).members.isEmpty)
    }

    @Test func subscriptFindsAMember() throws {
        let dictionary = try #require(StructuredDictionary(fieldValues: ["a=1, b"]))
        #expect(dictionary["b"] == .boolean(true))
        #expect(dictionary["c"] == nil)
    }
}
