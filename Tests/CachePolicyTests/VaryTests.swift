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
        // The names alone: none for `*`.
        if case .names(let names) = expected { #expect(Vary.names(in: HTTPHeaders(fields)) == names) }
        if expected == .any { #expect(Vary.names(in: HTTPHeaders(fields)).isEmpty) }
    }

    /// `listsAny` answers what `field(in:) == .any` does, also when a `*` is in a name and not a member, and
    /// for every line of a repeated field.
    @Test(
        arguments: [
            ([], false),
            ([("Vary", "Accept-Encoding")], false),
            ([("Vary", "Accept, *")], true),
            ([("Vary", " * ")], true),
            ([("Vary", "Accept"), ("vary", "*")], true),
            ([("Vary", "X*Y")], false),
            ([("Vary", "X*Y, *")], true),
            ([("Via", "*"), ("Vary", "Accept")], false),
        ] as [([(String, String)], Bool)])
    func listsAnyAgreesWithTheField(fields: [(String, String)], expected: Bool) {
        let headers = HTTPHeaders(fields)
        #expect(Vary.listsAny(in: headers) == expected)
        #expect((Vary.field(in: headers) == .any) == expected)
    }

    @Test(
        arguments: [
            ([("Accept-Language", "en,  fr")], "en, fr"),
            ([("Accept-Language", " en ,fr ")], "en, fr"),
            ([("Accept-Language", "en"), ("accept-language", "fr")], "en, fr"),  // lines combined
            ([("Accept-Language", "en,,fr")], "en, fr"),
            ([("Accept-Language", "")], ""),  // present but empty
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
        let request = HTTPHeaders([("User-Agent", "ua"), ("Accept-Language", "en")])
        #expect(
            Vary.keyPairs(names: ["accept-language", "user-agent", "accept"], requestHeaders: request) == [
                Vary.KeyPair(name: "accept-language", value: "en"), Vary.KeyPair(name: "user-agent", value: "ua"),
                Vary.KeyPair(name: "accept", value: nil),
            ])
    }

    @Test(
        arguments: [
            ("same value", [("Accept-Language", "en, fr")], [("accept-language", "en,fr")], true),
            ("different value", [("Accept-Language", "en")], [("Accept-Language", "fr")], false),
            ("order is significant", [("Accept-Language", "en, fr")], [("Accept-Language", "fr, en")], false),
            ("values are case-sensitive", [("Accept-Language", "en")], [("Accept-Language", "EN")], false),
            ("absent in both", [], [("X-Other", "1")], true),
            ("absent in one", [], [("Accept-Language", "en")], false),
        ] as [(String, [(String, String)], [(String, String)], Bool)])
    func storedResponseMatchesOnlyEqualNormalisedValues(
        rule: String, original: [(String, String)], new: [(String, String)], expected: Bool
    ) {
        let field = Vary.Field.names(["accept-language"])
        #expect(
            Vary.matches(field: field, originalRequest: HTTPHeaders(original), newRequest: HTTPHeaders(new))
                == expected,
            "\(rule)")
    }

    @Test func varyStarNeverMatches() {
        #expect(!Vary.matches(field: .any, originalRequest: HTTPHeaders(), newRequest: HTTPHeaders()))
    }

    /// Accept-Encoding keys on what Larder serves, gzip or identity: the spellings of one class are one
    /// variant, and the classes never share one.
    @Test(
        arguments: [
            ("gzip", "gzip"),
            ("gzip, br", "gzip"),
            ("br, gzip, deflate", "gzip"),
            ("GZIP;q=0.5", "gzip"),
            ("x-gzip", "gzip"),
            ("*", "gzip"),
            ("br", "identity"),
            ("deflate, br", "identity"),
            ("gzip;q=0", "identity"),
            ("*;q=0, identity", "identity"),
            ("", "identity"),
            ("identity", "identity"),
        ] as [(String, String)])
    func acceptEncodingIsNormalisedToTheVariantServed(value: String, variant: String) {
        let headers = HTTPHeaders([("Accept-Encoding", value)])
        #expect(Vary.normalizedValue(of: "accept-encoding", in: headers) == variant)
        #expect(EncodingVariant(requestHeaders: headers).rawValue == variant)
    }

    @Test func aCallerWithoutAcceptEncodingSharesTheIdentityVariant() {
        let names = ["accept-encoding"]
        let absent = Vary.keyPairs(names: names, requestHeaders: HTTPHeaders())
        #expect(absent == [Vary.KeyPair(name: "accept-encoding", value: "identity")])
        #expect(absent == Vary.keyPairs(names: names, requestHeaders: HTTPHeaders([("Accept-Encoding", "br")])))
        #expect(absent != Vary.keyPairs(names: names, requestHeaders: HTTPHeaders([("Accept-Encoding", "gzip")])))
    }
}
