import CachePolicy
import HTTPCore
import Testing

/// RFC 5861 §4 `stale-if-error`, limited by RFC 9111 §5.2.2.2 (`must-revalidate` and kin).
@Suite struct StaleIfErrorTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var rule: String
        var response: [(String, String)]
        var request: [(String, String)] = []
        var failure = StaleIfError.OriginFailure.unreachable
        var elapsed: Int64
        var overrides = PolicyOverrides.none
        var expected: StaleIfError.Decision
        var testDescription: String { rule }
    }

    static let cases: [Case] = [
        Case(
            rule: "response stale-if-error covers an unreachable origin",
            response: [("Cache-Control", "max-age=60, stale-if-error=100")], elapsed: 160,
            expected: .serveStale(age: 160, window: 100)),
        Case(
            rule: "past the window nothing is served",
            response: [("Cache-Control", "max-age=60, stale-if-error=100")], elapsed: 161,
            expected: .doNotServe(.tooStale(staleness: 101, window: 100))),
        Case(
            rule: "a 503 counts as an error", response: [("Cache-Control", "max-age=60, stale-if-error=100")],
            failure: .status(503), elapsed: 100, expected: .serveStale(age: 100, window: 100)),
        Case(
            rule: "500, 502, 504 count as errors too", response: [("Cache-Control", "max-age=60, stale-if-error=100")],
            failure: .status(504), elapsed: 100, expected: .serveStale(age: 100, window: 100)),
        Case(
            rule: "a 501 is not an error in RFC 5861's sense",
            response: [("Cache-Control", "max-age=60, stale-if-error=100")], failure: .status(501), elapsed: 100,
            expected: .doNotServe(.notAnError)),
        Case(
            rule: "a 404 is relayed", response: [("Cache-Control", "max-age=60, stale-if-error=100")],
            failure: .status(404), elapsed: 100, expected: .doNotServe(.notAnError)),
        Case(
            rule: "request stale-if-error gives a window", response: [("Cache-Control", "max-age=60")],
            request: [("Cache-Control", "stale-if-error=50")], elapsed: 100, expected: .serveStale(age: 100, window: 50)
        ),
        Case(
            rule: "filter staleIfError gives a window", response: [("Cache-Control", "max-age=60")], elapsed: 1000,
            overrides: PolicyOverrides(staleIfError: 3600), expected: .serveStale(age: 1000, window: 3600)),
        Case(
            rule: "the longest window applies", response: [("Cache-Control", "max-age=60, stale-if-error=10")],
            request: [("Cache-Control", "stale-if-error=20")], elapsed: 80, overrides: PolicyOverrides(staleIfError: 5),
            expected: .serveStale(age: 80, window: 20)),
        Case(
            rule: "no window, no stale", response: [("Cache-Control", "max-age=60")], elapsed: 61,
            expected: .doNotServe(.noWindow)),
        Case(
            rule: "§5.2.2.2: must-revalidate overrides stale-if-error",
            response: [("Cache-Control", "max-age=60, must-revalidate, stale-if-error=100")], elapsed: 61,
            expected: .doNotServe(.revalidationRequired)),
        Case(
            rule: "§5.2.2.2: must-revalidate overrides the filter too",
            response: [("Cache-Control", "max-age=60, must-revalidate")], elapsed: 61,
            overrides: PolicyOverrides(staleIfError: 3600), expected: .doNotServe(.revalidationRequired)),
        Case(
            rule: "§5.2.2.8: proxy-revalidate overrides stale-if-error",
            response: [("Cache-Control", "max-age=60, proxy-revalidate, stale-if-error=100")], elapsed: 61,
            expected: .doNotServe(.revalidationRequired)),
        Case(
            rule: "§5.2.2.10: s-maxage overrides stale-if-error",
            response: [("Cache-Control", "s-maxage=60, stale-if-error=100")], elapsed: 61,
            expected: .doNotServe(.revalidationRequired)),
        Case(
            rule: "§5.2.2.4: no-cache overrides stale-if-error",
            response: [("Cache-Control", "no-cache, stale-if-error=100")], elapsed: 1,
            expected: .doNotServe(.revalidationRequired)),
        Case(
            rule: "§3.5: Authorization still applies",
            response: [("Cache-Control", "max-age=60, stale-if-error=100")], request: [("Authorization", "Basic x")],
            elapsed: 61, expected: .doNotServe(.notReusable(.authorization))),
        Case(
            rule: "a fresh response forced to revalidate is served on error",
            response: [("Cache-Control", "max-age=60, stale-if-error=0")], request: [("Cache-Control", "no-cache")],
            elapsed: 10, expected: .serveStale(age: 10, window: 0)),
    ]

    @Test(arguments: cases)
    func staleIfErrorFollowsRFC5861(_ testCase: Case) {
        let decision = StaleIfError.decide(
            stored: Fixture.response(testCase.response), requestMethod: .get,
            requestHeaders: HTTPHeaders(testCase.request), failure: testCase.failure,
            now: Fixture.t0 + testCase.elapsed, overrides: testCase.overrides)
        #expect(decision == testCase.expected)
    }
}
