import CachePolicy
import HTTPCore
import Testing

/// RFC 9111 §4.2.4: a stale response when disconnected from the origin, within the configured window,
/// unless `must-revalidate`, `proxy-revalidate`, `s-maxage` or `no-cache` forbid it.
@Suite struct StaleIfDisconnectedTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var rule: String
        var response: [(String, String)]
        var request: [(String, String)] = []
        var elapsed: Int64
        var setting: Int64 = 86_400
        var overrides = PolicyOverrides.none
        var expected: StaleIfDisconnected.Decision
        var testDescription: String { rule }
    }

    static let cases: [Case] = [
        Case(
            rule: "a stale response is served within the setting's window",
            response: [("Cache-Control", "max-age=60")], elapsed: 160,
            expected: .serveStale(age: 160, staleness: 100, window: 86_400)),
        Case(
            rule: "at the edge of the window it still is", response: [("Cache-Control", "max-age=60")], elapsed: 160,
            setting: 100, expected: .serveStale(age: 160, staleness: 100, window: 100)),
        Case(
            rule: "one second past the window it is not", response: [("Cache-Control", "max-age=60")], elapsed: 161,
            setting: 100, expected: .doNotServe(.tooStale(staleness: 101, window: 100))),
        Case(
            rule: "a setting of 0 turns it off", response: [("Cache-Control", "max-age=60")], elapsed: 61,
            setting: 0, expected: .doNotServe(.off)),
        Case(
            rule: "the filter's window replaces a shorter setting", response: [("Cache-Control", "max-age=60")],
            elapsed: 1060, setting: 100, overrides: PolicyOverrides(staleIfDisconnected: 1000),
            expected: .serveStale(age: 1060, staleness: 1000, window: 1000)),
        Case(
            rule: "the filter's window replaces a longer setting", response: [("Cache-Control", "max-age=60")],
            elapsed: 161, overrides: PolicyOverrides(staleIfDisconnected: 100),
            expected: .doNotServe(.tooStale(staleness: 101, window: 100))),
        Case(
            rule: "a filter's 0 turns it off for its requests", response: [("Cache-Control", "max-age=60")],
            elapsed: 61, overrides: PolicyOverrides(staleIfDisconnected: 0), expected: .doNotServe(.off)),
        Case(
            rule: "the filter's ttl decides the staleness", response: [("Cache-Control", "max-age=60")], elapsed: 400,
            setting: 100, overrides: PolicyOverrides(ttl: 300),
            expected: .serveStale(age: 400, staleness: 100, window: 100)),
        Case(
            rule: "a fresh response forced to revalidate by the caller is served",
            response: [("Cache-Control", "max-age=60")], request: [("Cache-Control", "no-cache")], elapsed: 10,
            expected: .serveStale(age: 10, staleness: 0, window: 86_400)),
        Case(
            rule: "§5.2.2.2: must-revalidate forbids it", response: [("Cache-Control", "max-age=60, must-revalidate")],
            elapsed: 61, expected: .doNotServe(.revalidationRequired)),
        Case(
            rule: "§5.2.2.8: proxy-revalidate forbids it",
            response: [("Cache-Control", "max-age=60, proxy-revalidate")],
            elapsed: 61, expected: .doNotServe(.revalidationRequired)),
        Case(
            rule: "§5.2.2.10: s-maxage forbids it", response: [("Cache-Control", "s-maxage=60")], elapsed: 61,
            expected: .doNotServe(.revalidationRequired)),
        Case(
            rule: "§5.2.2.4: no-cache forbids it", response: [("Cache-Control", "no-cache")], elapsed: 1,
            expected: .doNotServe(.revalidationRequired)),
        Case(
            rule: "a filter's window does not lift must-revalidate",
            response: [("Cache-Control", "max-age=60, must-revalidate")], elapsed: 61,
            overrides: PolicyOverrides(staleIfDisconnected: 3600), expected: .doNotServe(.revalidationRequired)),
        Case(
            rule: "§3.5: Authorization still applies", response: [("Cache-Control", "max-age=60")],
            request: [("Authorization", "Basic x")], elapsed: 61,
            expected: .doNotServe(.notReusable(.authorization))),
    ]

    @Test(arguments: cases)
    func staleIfDisconnectedFollowsRFC9111(_ testCase: Case) {
        let window = StaleIfDisconnected.window(setting: testCase.setting, overrides: testCase.overrides)
        let decision = StaleIfDisconnected.decide(
            stored: Fixture.response(testCase.response), requestMethod: .get,
            requestHeaders: HTTPHeaders(testCase.request), now: Fixture.t0 + testCase.elapsed, window: window,
            overrides: testCase.overrides)
        #expect(decision == testCase.expected)
    }

    @Test func aPostIsNeverAnsweredStale() {
        let decision = StaleIfDisconnected.decide(
            stored: Fixture.response([("Cache-Control", "max-age=60")]), requestMethod: .post,
            requestHeaders: HTTPHeaders(), now: Fixture.t0 + 61, window: 3600)
        #expect(decision == .doNotServe(.notReusable(.methodNotCacheable)))
    }

    @Test func entriesAreKeptForTheWindowUnlessTheyMayNeverBeServedStale() {
        let plain = Fixture.response([("Cache-Control", "max-age=60")])
        #expect(StaleIfDisconnected.allowance(for: plain, window: 86_400) == 86_400)
        #expect(StaleIfDisconnected.allowance(for: plain, window: 0) == 0)
        for forbidding in ["max-age=60, must-revalidate", "max-age=60, proxy-revalidate", "s-maxage=60", "no-cache"] {
            let stored = Fixture.response([("Cache-Control", forbidding)])
            #expect(StaleIfDisconnected.allowance(for: stored, window: 86_400) == 0, "\(forbidding)")
        }
    }
}
