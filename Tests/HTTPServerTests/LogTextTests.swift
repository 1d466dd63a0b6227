import HTTPServer
import Testing

struct LogTextTests {
    @Test(arguments: [
        ("plain text", "plain text"),
        ("", ""),
        ("a\nforged line", "a\\x0Aforged line"),
        ("a\r\nb", "a\\x0D\\x0Ab"),
        ("\u{1B}[31mred\u{1B}[0m", "\\x1B[31mred\\x1B[0m"),
        ("bell\u{7}nul\u{0}del\u{7F}", "bell\\x07nul\\x00del\\x7F"),
        ("tab\there", "tab\\x09here"),
        ("csi\u{9B}31m next\u{85}", "csi\\u{009B}31m next\\u{0085}"),
        ("caf\u{E9} \u{1F600} \"quoted\" back\\slash", "caf\u{E9} \u{1F600} \"quoted\" back\\slash"),
    ])
    func controlCharactersAreEscapedAndTheRestIsKept(text: String, escaped: String) {
        #expect(LogText.escapingControlCharacters(text) == escaped)
    }

    @Test func noControlByteSurvivesWhateverTheInput() {
        let every = String(decoding: (0...0xFF).map { UInt8($0) } + [0xC2, 0x85, 0xC2, 0x9B], as: UTF8.self)
        let escaped = LogText.escapingControlCharacters(every)
        #expect(!escaped.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
    }
}
