import Testing

@testable import CachePolicy

struct FilterJSONTests {
    @Test func valuesParseWithOrderAndExactNumberText() throws {
        let value = try FilterJSON.parse(Array(#" {"b":[1,-2.5e3,true,null],"a":"x\u00e9\ud83d\ude00\n"} "#.utf8))
        #expect(
            value
                == .object([
                    ("b", .array([.number("1"), .number("-2.5e3"), .bool(true), .null])), ("a", .string("xé😀\n")),
                ]))
        #expect(value.text == #"{"b":[1,-2.5e3,true,null],"a":"xé😀\n"}"#)
    }

    @Test(arguments: [
        "", "{", "[1,]", "{\"a\":1,}", "01", "1.", "-", "+1", "tru", "nul", "\"abc", "\"\\x\"", "\"\\ud800\"",
        "\"\\udc00x\"", "{\"a\" 1}", "{1:2}", "[1] [2]", "NaN", "\"\u{01}\"", "{\"a\":1,\"a\":2}",
        String(repeating: "[", count: 40) + String(repeating: "]", count: 40),
    ])
    func malformedJSONIsRefused(_ text: String) {
        #expect(throws: FilterDefinitionError.self) { try FilterJSON.parse(Array(text.utf8)) }
    }

    @Test func invalidUTF8InAStringIsRefused() {
        #expect(throws: FilterDefinitionError.self) { try FilterJSON.parse([0x22, 0xFF, 0x22]) }
    }
}
