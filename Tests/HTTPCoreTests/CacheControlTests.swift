import HTTPCore
import Testing

/// RFC 9111 §5.2: Cache-Control grammar, and §4.2.1 / §1.2.2 on bad and duplicate values.
@Suite struct CacheControlTests {
    typealias Directive = CacheControl.Directive

    @Test(
        arguments: [
            ("no-store", [Directive(name: "no-store")]),
            ("NO-STORE", [Directive(name: "no-store")]),  // §5.2: names are case-insensitive
            ("Max-Age=60", [Directive(name: "max-age", argument: "60")]),
            ("max-age=\"60\"", [Directive(name: "max-age", argument: "60")]),  // quoted-string form accepted
            (
                "public,max-age=5 ,  s-maxage=7",
                [
                    Directive(name: "public"), Directive(name: "max-age", argument: "5"),
                    Directive(name: "s-maxage", argument: "7"),
                ]
            ),
            (
                "no-cache=\"Set-Cookie, X-Id\", private",
                [
                    Directive(name: "no-cache", argument: "Set-Cookie, X-Id"), Directive(name: "private"),
                ]
            ),
            (#"ext="a \"quoted\" \\ value""#, [Directive(name: "ext", argument: #"a "quoted" \ value"#)]),
            (",,, max-age=1 ,,", [Directive(name: "max-age", argument: "1")]),  // empty list elements
            ("max-age = 9", [Directive(name: "max-age", argument: "9")]),  // BWS around = tolerated
            ("max-age=5x", [Directive(name: "max-age", argument: "5x")]),  // a token; invalid as delta-seconds
            ("max-age=5 x", [Directive(name: "max-age", isMalformed: true)]),
            ("max-age=", [Directive(name: "max-age", isMalformed: true)]),
            ("max-age 5, no-store", [Directive(name: "max-age", isMalformed: true), Directive(name: "no-store")]),
            ("private=\"unterminated, max-age=5", [Directive(name: "private", isMalformed: true)]),
            (
                "private=\"a\u{1}b, c\", max-age=5",
                [
                    Directive(name: "private", isMalformed: true), Directive(name: "max-age", argument: "5"),
                ]
            ),
            ("=5, {}, no-store", [Directive(name: "no-store")]),  // elements without a name are dropped
            ("\"quoted, junk\", public", [Directive(name: "public")]),
            ("", []),
        ] as [(String, [Directive])])
    func directivesAreParsed(value: String, expected: [Directive]) {
        #expect(CacheControl(fieldValues: [value]).directives == expected)
    }

    @Test func everyFieldLineIsRead() {
        let headers = HTTPHeaders([
            ("Cache-Control", "public"), ("X-Other", "no-store"), ("cache-control", "max-age=3"),
        ])
        let cacheControl = CacheControl(headers: headers)
        #expect(cacheControl.isPublic)
        #expect(cacheControl.maxAge == .seconds(3))
        #expect(!cacheControl.noStore)
    }

    @Test(
        arguments: [
            ("max-age=0", CacheControl.DeltaSeconds.seconds(0)),
            ("max-age=0060", .seconds(60)),
            ("", .absent),
            ("max-age", .noArgument),
            ("max-age=-1", .invalid),  // §1.2.2: 1*DIGIT, no sign
            ("max-age=+1", .invalid),
            ("max-age=1.5", .invalid),
            ("max-age=5x", .invalid),
            ("max-age=\"\"", .invalid),
            ("max-age=\" 5\"", .invalid),
            ("max-age=2147483647", .seconds(2_147_483_647)),
            ("max-age=2147483648", .seconds(2_147_483_648)),
            ("max-age=99999999999999999999999999", .seconds(2_147_483_648)),  // §1.2.2: clamp to 2^31
            ("max-age=5, max-age=5", .seconds(5)),  // agreeing duplicates are one value
            ("max-age=5, max-age=6", .invalid),  // §4.2.1: conflicting duplicates are treated as invalid
            ("max-age=5, max-age", .invalid),
            ("max-age=5, MAX-AGE=x", .invalid),
        ] as [(String, CacheControl.DeltaSeconds)])
    func deltaSecondsFollowSection1_2_2(value: String, expected: CacheControl.DeltaSeconds) {
        #expect(CacheControl(fieldValues: [value]).maxAge == expected)
    }

    @Test func duplicateAcrossFieldLinesConflicts() {
        #expect(CacheControl(fieldValues: ["max-age=10", "max-age=20"]).maxAge == .invalid)
    }

    @Test func typedAccessorsReadTheirDirective() {
        let cacheControl = CacheControl(fieldValues: [
            "no-cache, no-store, private, public, must-revalidate, proxy-revalidate, must-understand",
            "no-transform, only-if-cached, immutable, s-maxage=1, max-stale, min-fresh=3",
            "stale-while-revalidate=4, stale-if-error=5",
        ])
        #expect(cacheControl.noCache && cacheControl.noStore && cacheControl.isPrivate && cacheControl.isPublic)
        #expect(cacheControl.mustRevalidate && cacheControl.proxyRevalidate && cacheControl.mustUnderstand)
        #expect(cacheControl.noTransform && cacheControl.onlyIfCached && cacheControl.immutable)
        #expect(cacheControl.sMaxAge == .seconds(1))
        #expect(cacheControl.maxStale == .noArgument)
        #expect(cacheControl.minFresh == .seconds(3))
        #expect(cacheControl.staleWhileRevalidate == .seconds(4))
        #expect(cacheControl.staleIfError == .seconds(5))
        #expect(cacheControl.maxAge == .absent)
        let empty = CacheControl(fieldValues: [])
        #expect(!empty.noCache && !empty.noStore && !empty.isPrivate && !empty.mustRevalidate)
    }

    @Test func malformedFlagsStillCount() {
        // Presence is the restrictive reading: a garbled no-store is still a no-store.
        #expect(CacheControl(fieldValues: ["no-store=\"x"]).noStore)
    }

    @Test func qualifiedFormsListTheirFieldNames() {
        let cacheControl = CacheControl(fieldValues: ["no-cache=\"Set-Cookie, X-Id\", private=x-a, no-cache"])
        #expect(cacheControl.fieldNames(of: "no-cache") == ["set-cookie", "x-id"])
        #expect(cacheControl.fieldNames(of: "private") == ["x-a"])
        #expect(cacheControl.fieldNames(of: "public") == [])
    }
}
