import CachePolicy
import HTTPCore
import Testing

/// RFC 9111 §4.1: secondary keys from Vary.
@Suite struct VaryTests {
    @Test(
        arguments: [
            ([], Vary.Field.names([])),
            ([("Vary", "Accept-Encoding")], .names(["accept-encoding"])),
            (
                [("Vary", "Accept-Encoding, ACCEPT-encoding , User-Agent"), ("vary", "Accept")],
                .names(["accept-encoding", "user-agent", "accept"])
            ),
            ([("Vary", "Accept, *")], .any),
            ([("Vary", "Accept"), ("Vary", "*")], .any),
            ([("Vary", "Accept, bad name, (x)")], .names(["accept"])),
        ] as [([(String, String)], Vary.Field)])
    func varyNamesAreNormalised(fields: [(String, String)], expected: Vary.Field) {
        #expect(Vary.field(in: HTTPHeaders(fields)) == expected)
    }

    @Test(
        arguments: [
            ([("Accept-Encoding", "gzip,  br")], "gzip, br"),
            ([("Accept-Encoding", " gzip ,br ")], "gzip, br"),
            ([("Accept-Encoding", "gzip"), ("accept-encoding", "br")], "gzip, br"),  // lines combined
            ([("Accept-Encoding", "gzip,,br")], "gzip, br"),
            ([("Accept-Encoding", "")], ""),  // present but empty
            ([("Accept-Language", "en-US,\tfr;q=0.5")], "en-US, fr;q=0.5"),
            ([("X-Quoted", "\"a,  b\", c")], "\"a,  b\", c"),  // commas and spaces in quotes are kept
            ([("User-Agent", "Mozilla/5.0   (X11)  AppleWebKit")], "Mozilla/5.0 (X11) AppleWebKit"),
        ] as [([(String, String)], String)])
    func valuesAreNormalised(fields: [(String, String)], expected: String) {
        let name = fields[0].0
        #expect(Vary.normalizedValue(of: name, in: HTTPHeaders(fields)) == expected)
    }

    @Test func absentIsNotEmpty() {
        #expect(Vary.normalizedValue(of: "Accept", in: HTTPHeaders()) == nil)
        let empty = Vary.keyPairs(names: ["accept"], requestHeaders: HTTPHeaders([("Accept", "")]))
        let absent = Vary.keyPairs(names: ["accept"], requestHeaders: HTTPHeaders())
        #expect(empty != absent)
    }

    @Test func keyPairsFollowVaryOrder() {
        let request = HTTPHeaders([("User-Agent", "ua"), ("Accept-Encoding", "gzip")])
        #expect(
            Vary.keyPairs(names: ["accept-encoding", "user-agent", "accept"], requestHeaders: request) == [
                Vary.KeyPair(name: "accept-encoding", value: "gzip"), Vary.KeyPair(name: "user-agent", value: "ua"),
                Vary.KeyPair(name: "accept", value: nil),
            ])
    }

    @Test(
        arguments: [
            ("same value", [("Accept-Encoding", "gzip, br")], [("accept-encoding", "gzip,br")], true),
            ("different value", [("Accept-Encoding", "gzip")], [("Accept-Encoding", "br")], false),
            ("order is significant", [("Accept-Encoding", "gzip, br")], [("Accept-Encoding", "br, gzip")], false),
            ("values are case-sensitive", [("Accept-Encoding", "gzip")], [("Accept-Encoding", "GZIP")], false),
            ("absent in both", [], [("X-Other", "1")], true),
            ("absent in one", [], [("Accept-Encoding", "gzip")], false),
        ] as [(String, [(String, String)], [(String, String)], Bool)])
    func storedResponseMatchesOnlyEqualNormalisedValues(
        rule: String, original: [(String, String)], new: [(String, String)], expected: Bool
    ) {
        let field = Vary.Field.names(["accept-encoding"])
        #expect(
            Vary.matches(field: field, originalRequest: HTTPHeaders(original), newRequest: HTTPHeaders(new))
                == expected,
            "\(rule)")
    }

    @Test func varyStarNeverMatches() {
        #expect(!Vary.matches(field: .any, originalRequest: HTTPHeaders(), newRequest: HTTPHeaders()))
    }
}
