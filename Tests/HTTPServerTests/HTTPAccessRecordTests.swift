import HTTPServer
import Testing

@Suite struct HTTPAccessRecordTests {
    @Test(arguments: [
        ("/plain?q=1", "/plain?q=1"),
        ("/a\r\nfake line", "/a\\x0D\\x0Afake line"),
        ("/quote\"back\\slash", "/quote\\x22back\\x5Cslash"),
        ("/caf\u{E9}", "/caf\\xC3\\xA9"),
        ("/del\u{7F}", "/del\\x7F"),
    ])
    func logTextHasOnlyPrintableASCII(raw: String, expected: String) {
        #expect(HTTPAccessRecord.escapedForLog(raw) == expected)
    }
}
