import CachePolicy
import HTTPCore
import Testing

/// RFC 9111 §4.3: conditional requests (§4.3.1), freshening with a 304 (§3.2, §4.3.4).
@Suite struct RevalidationTests {
    @Test(
        arguments: [
            ([("ETag", "\"abc\"")], [("If-None-Match", "\"abc\"")]),
            ([("ETag", "W/\"abc\"")], [("If-None-Match", "W/\"abc\"")]),
            (
                [("Last-Modified", "Sun, 06 Nov 1994 08:49:37 GMT")],
                [("If-Modified-Since", "Sun, 06 Nov 1994 08:49:37 GMT")]
            ),
            (
                [("ETag", "\"a\""), ("Last-Modified", "Sun, 06 Nov 1994 08:49:37 GMT")],
                [("If-None-Match", "\"a\""), ("If-Modified-Since", "Sun, 06 Nov 1994 08:49:37 GMT")]
            ),
            // A malformed validator next to a usable one: the usable one alone, in either order.
            (
                [("ETag", "abc"), ("Last-Modified", "Sun, 06 Nov 1994 08:49:37 GMT")],
                [("If-Modified-Since", "Sun, 06 Nov 1994 08:49:37 GMT")]
            ),
            ([("Last-Modified", "last tuesday"), ("ETag", "\"a\"")], [("If-None-Match", "\"a\"")]),
            ([("ETag", "abc"), ("Last-Modified", "last tuesday")], []),
            ([("ETag", "abc")], []),  // unquoted: not an entity-tag
            ([("ETag", "\"a b\"")], []),  // a space is not etagc
            ([("Last-Modified", "last tuesday")], []),
            ([], []),
        ] as [([(String, String)], [(String, String)])])
    func conditionalHeadersUseStoredValidators(stored: [(String, String)], expected: [(String, String)]) {
        let facts = Fixture.response(stored)
        #expect(Revalidation.conditionalHeaders(for: facts) == HTTPHeaders(expected))
        #expect(Revalidation.hasValidator(facts) == !expected.isEmpty)
    }

    @Test func notModifiedReplacesPresentFieldsAndKeepsOthers() {
        let stored = HTTPHeaders([
            ("Content-Type", "image/png"), ("Cache-Control", "max-age=60"), ("ETag", "\"v1\""),
            ("Date", "Sun, 06 Nov 1994 08:49:37 GMT"), ("X-Old", "1"), ("Content-Length", "500"),
            ("Link", "<a>"), ("Link", "<b>"),
        ])
        let notModified = HTTPHeaders([
            ("Cache-Control", "max-age=600"), ("Date", "Mon, 07 Nov 1994 08:49:37 GMT"), ("Link", "<c>"),
            ("X-New", "2"),
            // Never taken from a 304: §3.2 Content-Length, Larder's stored-body fields, hop-by-hop,
            // a field the 304's Connection names, proxy fields, Larder's own.
            ("Content-Length", "0"), ("Content-Type", "text/html"), ("Content-Encoding", "gzip"),
            ("Connection", "X-Hop"), ("X-Hop", "h"), ("Keep-Alive", "timeout=5"), ("Transfer-Encoding", "chunked"),
            ("Proxy-Authenticate", "Basic"), ("X-Cache", "HIT"),
        ])
        let merged = Revalidation.mergeNotModified(stored: stored, notModified: notModified)
        #expect(
            merged
                == HTTPHeaders([
                    ("Content-Type", "image/png"), ("Cache-Control", "max-age=600"), ("ETag", "\"v1\""),
                    ("Date", "Mon, 07 Nov 1994 08:49:37 GMT"), ("X-Old", "1"), ("Content-Length", "500"),
                    ("Link", "<c>"), ("X-New", "2"),
                ]))
    }

    @Test func refreshedFactsRestartTheAgeClock() {
        let stored = Fixture.response([("Cache-Control", "max-age=60"), ("ETag", "\"v1\"")])
        let headers = Revalidation.mergeNotModified(
            stored: stored.headers,
            notModified: HTTPHeaders([("Date", Fixture.date(1000)), ("Cache-Control", "max-age=60")]))
        let refreshed = stored.refreshed(
            headers: headers, requestTime: Fixture.t0 + 999, responseTime: Fixture.t0 + 1000)
        // §4.2.3: one second of response delay plus ten resident.
        #expect(refreshed.currentAge(now: Fixture.t0 + 1010) == 11)
        #expect(refreshed.isFresh(now: Fixture.t0 + 1010))
        #expect(!stored.isFresh(now: Fixture.t0 + 1010))
    }

    static let candidates = [
        Fixture.response([("ETag", "\"a\"")], receivedAt: 1),
        Fixture.response([("ETag", "W/\"b\"")], receivedAt: 2),
        Fixture.response([("ETag", "W/\"b\"")], receivedAt: 3),
        Fixture.response([("ETag", "\"a\"")], receivedAt: 4),
        Fixture.response([("Last-Modified", "Sun, 06 Nov 1994 08:49:37 GMT")], receivedAt: 5),
    ]

    @Test(
        arguments: [
            ("§4.3.4: a strong ETag selects every stored response with it", [("ETag", "\"a\"")], [0, 3]),
            ("§4.3.4: a strong ETag matching none selects nothing", [("ETag", "\"zzz\"")], []),
            ("§4.3.4: a strong ETag does not select a weak one", [("ETag", "\"b\"")], []),
            ("§4.3.4: a weak ETag selects the most recent match", [("ETag", "W/\"b\"")], [2]),
            (
                "§4.3.4: Last-Modified selects the most recent match",
                [("Last-Modified", "Sun, 06 Nov 1994 08:49:37 GMT")], [4]
            ),
            ("§4.3.4: no validator and several stored responses selects nothing", [], []),
        ] as [(String, [(String, String)], [Int])])
    func notModifiedSelectsResponsesToUpdate(rule: String, fields: [(String, String)], expected: [Int]) {
        #expect(
            Revalidation.responsesToUpdate(notModified: HTTPHeaders(fields), candidates: Self.candidates) == expected,
            "\(rule)")
    }

    @Test func notModifiedWithoutValidatorUpdatesTheOnlyValidatorlessResponse() {
        // §4.3.4: only when there is exactly one stored response and it has no validator either.
        #expect(Revalidation.responsesToUpdate(notModified: HTTPHeaders(), candidates: [Fixture.response()]) == [0])
        let withTag = [Fixture.response([("ETag", "\"a\"")])]
        #expect(Revalidation.responsesToUpdate(notModified: HTTPHeaders(), candidates: withTag) == [])
    }

    @Test(
        arguments: [
            (304, Revalidation.Outcome.freshen), (200, .replace), (404, .replace), (301, .replace),
            (500, .originError), (503, .originError), (599, .originError),
        ] as [(Int, Revalidation.Outcome)])
    func validationAnswersAreClassifiedPerSection4_3_3(status: Int, expected: Revalidation.Outcome) {
        #expect(Revalidation.outcome(ofValidationStatus: status) == expected)
    }

    @Test(
        arguments: [
            ("same strong ETag", [("ETag", "\"v1\"")], true),
            ("other strong ETag", [("ETag", "\"v2\"")], false),
            ("weak form of the stored tag", [("ETag", "W/\"v1\"")], true),
            ("no validator: Larder's own conditional request", [], true),
            ("other Last-Modified only", [("Last-Modified", "Sun, 06 Nov 1994 08:49:37 GMT")], false),
        ] as [(String, [(String, String)], Bool)])
    func freshenUpdatesOnlyTheRepresentationValidated(rule: String, fields: [(String, String)], updates: Bool) {
        let stored = Fixture.response([("ETag", "\"v1\""), ("Cache-Control", "max-age=60"), ("X-Kept", "k")])
        let notModified = HTTPHeaders(fields + [("Cache-Control", "max-age=120")])
        let refreshed = Revalidation.freshen(
            stored: stored, notModified: notModified, requestTime: Fixture.t0 + 500, responseTime: Fixture.t0 + 500)
        #expect((refreshed != nil) == updates, "\(rule)")
        if let refreshed {
            #expect(refreshed.headers["Cache-Control"] == "max-age=120")
            #expect(refreshed.headers["X-Kept"] == "k")
            #expect(refreshed.isFresh(now: Fixture.t0 + 600))
            // RFC 9110 §6.6.1: the 304 had no Date, so the receive time stands in.
            #expect(refreshed.headers["Date"] == Fixture.date(500))
        }
    }
}
