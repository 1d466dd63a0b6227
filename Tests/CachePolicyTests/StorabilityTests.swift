import CachePolicy
import HTTPCore
import Testing

/// RFC 9111 §3 (storing responses) and §3.5 (Authorization) for a shared cache.
@Suite struct StorabilityTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var rule: String
        var method: HTTPMethod = .get
        var request: [(String, String)] = []
        var status = 200
        var response: [(String, String)] = []
        var expected: StorabilityDecision
        var testDescription: String { rule }
    }

    static let cases: [Case] =
        [
            Case(rule: "§3: plain 200 is heuristically cacheable", expected: .store),
            Case(rule: "§3: HEAD is cacheable", method: .head, expected: .store),
            Case(
                rule: "§3: POST is not stored", method: .post, response: [("Cache-Control", "max-age=60")],
                expected: .doNotStore(.methodNotCacheable)),
            Case(rule: "§3: PUT is not stored", method: .put, expected: .doNotStore(.methodNotCacheable)),
            Case(rule: "§3: 1xx is not final", status: 103, expected: .doNotStore(.statusNotFinal)),
            Case(rule: "§3: 600 is not a status", status: 600, expected: .doNotStore(.statusNotFinal)),
            Case(
                rule: "Larder: 206 never stored", status: 206, response: [("Cache-Control", "max-age=60")],
                expected: .doNotStore(.partialContent)),
            Case(rule: "§4.3.4: 304 updates, is not stored", status: 304, expected: .doNotStore(.notModified)),
            Case(
                rule: "§5.2.2.5: response no-store", response: [("Cache-Control", "max-age=60, no-store")],
                expected: .doNotStore(.responseNoStore)),
            Case(
                rule: "§5.2.2.5: NO-STORE in any case", response: [("cache-control", "NO-STORE")],
                expected: .doNotStore(.responseNoStore)),
            Case(
                rule: "§5.2.1.5: request no-store", request: [("Cache-Control", "no-store")],
                expected: .doNotStore(.requestNoStore)),
            Case(
                rule: "§5.2.2.3: must-understand with a known status overrides no-store",
                response: [("Cache-Control", "must-understand, no-store, max-age=60")], expected: .store),
            Case(
                rule: "§5.2.2.3: must-understand with an unknown status", status: 299,
                response: [("Cache-Control", "must-understand, no-store, max-age=60")],
                expected: .doNotStore(.statusNotUnderstood)),
            Case(
                rule: "§5.2.2.7: private in a shared cache", response: [("Cache-Control", "private, max-age=60")],
                expected: .doNotStore(.privateResponse)),
            Case(
                rule: "§5.2.2.7: private with field names is refused whole (Larder)",
                response: [("Cache-Control", "private=\"Set-Cookie\", max-age=60")],
                expected: .doNotStore(.privateResponse)),
            Case(
                rule: "§3.5: Authorization without permission", request: [("Authorization", "Bearer x")],
                response: [("Cache-Control", "max-age=60")], expected: .doNotStore(.authorization)),
            Case(
                rule: "§3.5: Authorization with public", request: [("Authorization", "Bearer x")],
                response: [("Cache-Control", "public")], expected: .store),
            Case(
                rule: "§3.5: Authorization with s-maxage", request: [("Authorization", "Bearer x")],
                response: [("Cache-Control", "s-maxage=60")], expected: .store),
            Case(
                rule: "§3.5: Authorization with must-revalidate", request: [("Authorization", "Bearer x")],
                response: [("Cache-Control", "must-revalidate, max-age=60")], expected: .store),
            Case(
                rule: "§4.1: Vary * never matches", response: [("Vary", "Accept, *")], expected: .doNotStore(.varyAny)),
            Case(rule: "§4.1: Vary with names is fine", response: [("Vary", "Accept-Encoding")], expected: .store),
            Case(
                rule: "Larder: Set-Cookie refused even when public",
                response: [("Cache-Control", "public, max-age=60"), ("Set-Cookie", "s=1")],
                expected: .doNotStore(.setCookie)),
            Case(
                rule: "§5.2.2.4: no-cache is storable (revalidated on use)",
                response: [("Cache-Control", "no-cache")], expected: .store),
            Case(rule: "§3: 302 without freshness", status: 302, expected: .doNotStore(.noFreshnessInformation)),
            Case(
                rule: "§3: 302 with max-age", status: 302, response: [("Cache-Control", "max-age=60")], expected: .store
            ),
            Case(
                rule: "§3: 307 with Expires", status: 307, response: [("Expires", Fixture.date(60))], expected: .store),
            Case(rule: "§3: 500 with public", status: 500, response: [("Cache-Control", "public")], expected: .store),
            Case(rule: "§3: 500 without freshness", status: 500, expected: .doNotStore(.noFreshnessInformation)),
            Case(
                rule: "§3: 201 with s-maxage", status: 201, response: [("Cache-Control", "s-maxage=5")],
                expected: .store),
            Case(rule: "§3: 403 without freshness", status: 403, expected: .doNotStore(.noFreshnessInformation)),
            Case(
                rule: "§3: 200 with an invalid max-age is still explicit (stored, stale)",
                response: [("Cache-Control", "max-age=abc")], expected: .store),
        ]
        + [203, 204, 300, 301, 308, 404, 405, 410, 414, 501].map { status in
            Case(rule: "RFC 9110 §15.1: \(status) is heuristically cacheable", status: status, expected: .store)
        }

    @Test(arguments: cases)
    func storageFollowsSection3(_ testCase: Case) {
        let decision = Storability.evaluate(
            requestMethod: testCase.method, requestHeaders: HTTPHeaders(testCase.request),
            status: testCase.status, responseHeaders: HTTPHeaders(testCase.response), targets: .standard)
        #expect(decision == testCase.expected)
    }

    /// What a filter's `ignoreNoStore` lifts, and what it does not.
    struct IgnoreNoStoreCase: CustomTestStringConvertible, Sendable {
        var rule: String
        var request: [(String, String)] = []
        var status = 200
        var response: [(String, String)]
        var withOption: StorabilityDecision
        var withoutOption: StorabilityDecision
        var testDescription: String { rule }
    }

    static let ignoreNoStoreCases: [IgnoreNoStoreCase] = [
        IgnoreNoStoreCase(
            rule: "response no-store is lifted", response: [("Cache-Control", "no-store")], withOption: .store,
            withoutOption: .doNotStore(.responseNoStore)),
        IgnoreNoStoreCase(
            rule: "response no-store with max-age is lifted", response: [("Cache-Control", "max-age=60, no-store")],
            withOption: .store, withoutOption: .doNotStore(.responseNoStore)),
        IgnoreNoStoreCase(
            rule: "the caller's request no-store still wins", request: [("Cache-Control", "no-store")],
            response: [("Cache-Control", "no-store")], withOption: .doNotStore(.requestNoStore),
            withoutOption: .doNotStore(.requestNoStore)),
        IgnoreNoStoreCase(
            rule: "private is not lifted", response: [("Cache-Control", "no-store, private")],
            withOption: .doNotStore(.privateResponse), withoutOption: .doNotStore(.responseNoStore)),
        IgnoreNoStoreCase(
            rule: "Set-Cookie is not lifted", response: [("Cache-Control", "no-store"), ("Set-Cookie", "s=1")],
            withOption: .doNotStore(.setCookie), withoutOption: .doNotStore(.responseNoStore)),
        IgnoreNoStoreCase(
            rule: "Authorization is not lifted", request: [("Authorization", "Bearer x")],
            response: [("Cache-Control", "no-store")], withOption: .doNotStore(.authorization),
            withoutOption: .doNotStore(.responseNoStore)),
        IgnoreNoStoreCase(
            rule: "Vary * is not lifted", response: [("Cache-Control", "no-store"), ("Vary", "*")],
            withOption: .doNotStore(.varyAny), withoutOption: .doNotStore(.responseNoStore)),
        IgnoreNoStoreCase(
            rule: "response Pragma no-cache never refused storage", response: [("Pragma", "no-cache")],
            withOption: .store, withoutOption: .store),
        IgnoreNoStoreCase(
            rule: "must-understand with an unknown status still refuses", status: 299,
            response: [("Cache-Control", "must-understand, no-store")], withOption: .doNotStore(.statusNotUnderstood),
            withoutOption: .doNotStore(.statusNotUnderstood)),
    ]

    @Test(arguments: ignoreNoStoreCases)
    func ignoreNoStoreLiftsOnlyTheResponseNoStore(_ testCase: IgnoreNoStoreCase) {
        for (ignoring, expected) in [(true, testCase.withOption), (false, testCase.withoutOption)] {
            let decision = Storability.evaluate(
                requestMethod: .get, requestHeaders: HTTPHeaders(testCase.request), status: testCase.status,
                responseHeaders: HTTPHeaders(testCase.response), ignoringResponseNoStore: ignoring,
                targets: .standard)
            #expect(decision == expected, "ignoreNoStore \(ignoring)")
        }
    }
}
