import CachePolicy
import HTTPCore
import Testing

/// RFC 9111 §4 (serving from cache) with the request directives of §5.2.1, the response directives of
/// §5.2.2 and RFC 5861 `stale-while-revalidate`.
@Suite struct ServePolicyTests {
    static let etag = ("ETag", "\"v1\"")
    static let lastModified = ("Last-Modified", Fixture.date(-100_000))
    static let validators = HTTPHeaders([("If-None-Match", "\"v1\""), ("If-Modified-Since", Fixture.date(-100_000))])
    static let etagOnly = HTTPHeaders([("If-None-Match", "\"v1\"")])

    struct Case: CustomTestStringConvertible, Sendable {
        var rule: String
        var method: HTTPMethod = .get
        var storedMethod: HTTPMethod = .get
        var response: [(String, String)]
        var request: [(String, String)] = []
        var elapsed: Int64
        var overrides = PolicyOverrides.none
        var expected: ServeDecision
        var testDescription: String { rule }
    }

    static let cases: [Case] = [
        // Freshness.
        Case(
            rule: "§4.2: fresh response is served with its age and ttl",
            response: [("Cache-Control", "max-age=60")], elapsed: 10, expected: .fresh(age: 10, ttl: 50)),
        Case(
            rule: "§4: HEAD is served from a stored GET", method: .head,
            response: [("Cache-Control", "max-age=60")], elapsed: 10, expected: .fresh(age: 10, ttl: 50)),
        Case(
            rule: "§4: GET is not served from a stored HEAD", storedMethod: .head,
            response: [("Cache-Control", "max-age=60")], elapsed: 10, expected: .mustFetch(.storedResponseIsHead)),
        Case(
            rule: "§4: POST is written through", method: .post,
            response: [("Cache-Control", "max-age=60")], elapsed: 10, expected: .mustFetch(.methodNotCacheable)),
        Case(
            rule: "§4.3.1: stale with ETag and Last-Modified revalidates with both",
            response: [("Cache-Control", "max-age=60"), etag, lastModified], elapsed: 60,
            expected: .mustRevalidate(conditionalHeaders: validators, why: .stale)),
        Case(
            rule: "§4.3.1: stale without validators is fetched",
            response: [("Cache-Control", "max-age=60")], elapsed: 61, expected: .mustFetch(.noValidator(.stale))),
        Case(
            rule: "§4.2.2: heuristic freshness serves", response: [("Last-Modified", Fixture.date(-10_000))],
            elapsed: 999, expected: .fresh(age: 999, ttl: 1)),
        Case(
            rule: "filter ttl keeps an expired response fresh", response: [("Cache-Control", "max-age=60")],
            elapsed: 100, overrides: PolicyOverrides(ttl: 600), expected: .fresh(age: 100, ttl: 500)),
        Case(
            rule: "filter maxTtl shortens freshness", response: [("Cache-Control", "max-age=600"), etag],
            elapsed: 100, overrides: PolicyOverrides(maxTtl: 50),
            expected: .mustRevalidate(conditionalHeaders: etagOnly, why: .stale)),
        // §3.5
        Case(
            rule: "§3.5: Authorization request is not served without permission",
            response: [("Cache-Control", "max-age=60")], request: [("Authorization", "Basic x")], elapsed: 1,
            expected: .mustFetch(.authorization)),
        Case(
            rule: "§3.5: Authorization request is served when public",
            response: [("Cache-Control", "max-age=60, public")], request: [("Authorization", "Basic x")], elapsed: 1,
            expected: .fresh(age: 1, ttl: 59)),
        // Response no-cache.
        Case(
            rule: "§5.2.2.4: no-cache revalidates even when fresh",
            response: [("Cache-Control", "no-cache, max-age=600"), etag], elapsed: 1,
            expected: .mustRevalidate(conditionalHeaders: etagOnly, why: .responseNoCache)),
        Case(
            rule: "§5.2.2.4: no-cache with field names is treated as bare no-cache",
            response: [("Cache-Control", "no-cache=\"Set-Cookie\", max-age=600"), etag], elapsed: 1,
            expected: .mustRevalidate(conditionalHeaders: etagOnly, why: .responseNoCache)),
        Case(
            rule: "§5.2.2.4: no-cache beats max-stale",
            response: [("Cache-Control", "no-cache"), etag], request: [("Cache-Control", "max-stale")], elapsed: 1,
            expected: .mustRevalidate(conditionalHeaders: etagOnly, why: .responseNoCache)),
        Case(
            rule: "§5.2.2.4: filter ttl does not lift no-cache",
            response: [("Cache-Control", "no-cache"), etag], elapsed: 1, overrides: PolicyOverrides(ttl: 600),
            expected: .mustRevalidate(conditionalHeaders: etagOnly, why: .responseNoCache)),
        // Request directives.
        Case(
            rule: "§5.2.1.4: request no-cache revalidates a fresh response",
            response: [("Cache-Control", "max-age=600"), etag], request: [("Cache-Control", "no-cache")], elapsed: 1,
            expected: .mustRevalidate(conditionalHeaders: etagOnly, why: .requestNoCache)),
        Case(
            rule: "§5.4: Pragma: no-cache without Cache-Control is no-cache",
            response: [("Cache-Control", "max-age=600"), etag], request: [("Pragma", "no-cache")], elapsed: 1,
            expected: .mustRevalidate(conditionalHeaders: etagOnly, why: .requestNoCache)),
        Case(
            rule: "§5.4: Pragma is ignored when Cache-Control is present",
            response: [("Cache-Control", "max-age=600")],
            request: [("Pragma", "no-cache"), ("Cache-Control", "max-age=900")], elapsed: 1,
            expected: .fresh(age: 1, ttl: 599)),
        Case(
            rule: "§5.2.1.1: request max-age below the age revalidates",
            response: [("Cache-Control", "max-age=600"), etag], request: [("Cache-Control", "max-age=5")], elapsed: 6,
            expected: .mustRevalidate(conditionalHeaders: etagOnly, why: .requestMaxAge)),
        Case(
            rule: "§5.2.1.1: request max-age at the age serves",
            response: [("Cache-Control", "max-age=600")], request: [("Cache-Control", "max-age=5")], elapsed: 5,
            expected: .fresh(age: 5, ttl: 595)),
        Case(
            rule: "§5.2.1.1: request max-age=0 always revalidates",
            response: [("Cache-Control", "max-age=600"), etag], request: [("Cache-Control", "max-age=0")], elapsed: 1,
            expected: .mustRevalidate(conditionalHeaders: etagOnly, why: .requestMaxAge)),
        Case(
            rule: "§4.2.1: invalid request max-age is most restrictive",
            response: [("Cache-Control", "max-age=600"), etag], request: [("Cache-Control", "max-age=soon")],
            elapsed: 0, expected: .mustRevalidate(conditionalHeaders: etagOnly, why: .requestMaxAge)),
        Case(
            rule: "§5.2.1.3: min-fresh not met revalidates",
            response: [("Cache-Control", "max-age=100"), etag], request: [("Cache-Control", "min-fresh=50")],
            elapsed: 60,
            expected: .mustRevalidate(conditionalHeaders: etagOnly, why: .requestMinFresh)),
        Case(
            rule: "§5.2.1.3: min-fresh met serves",
            response: [("Cache-Control", "max-age=100")], request: [("Cache-Control", "min-fresh=40")], elapsed: 60,
            expected: .fresh(age: 60, ttl: 40)),
        Case(
            rule: "§5.2.1.2: max-stale without a value serves any staleness",
            response: [("Cache-Control", "max-age=60")], request: [("Cache-Control", "max-stale")], elapsed: 100_000,
            expected: .staleAllowed(age: 100_000, why: .maxStale)),
        Case(
            rule: "§5.2.1.2: max-stale=N serves up to N seconds stale",
            response: [("Cache-Control", "max-age=60")], request: [("Cache-Control", "max-stale=30")], elapsed: 90,
            expected: .staleAllowed(age: 90, why: .maxStale)),
        Case(
            rule: "§5.2.1.2: max-stale=N refuses beyond N",
            response: [("Cache-Control", "max-age=60"), etag], request: [("Cache-Control", "max-stale=30")],
            elapsed: 91,
            expected: .mustRevalidate(conditionalHeaders: etagOnly, why: .stale)),
        Case(
            rule: "§5.2.1.2: invalid max-stale allows nothing",
            response: [("Cache-Control", "max-age=60")], request: [("Cache-Control", "max-stale=x")], elapsed: 61,
            expected: .mustFetch(.noValidator(.stale))),
        // Never stale.
        Case(
            rule: "§5.2.2.2: must-revalidate beats max-stale",
            response: [("Cache-Control", "max-age=60, must-revalidate"), etag],
            request: [("Cache-Control", "max-stale")],
            elapsed: 61, expected: .mustRevalidate(conditionalHeaders: etagOnly, why: .mustRevalidateDirective)),
        Case(
            rule: "§5.2.2.8: proxy-revalidate beats max-stale in a shared cache",
            response: [("Cache-Control", "max-age=60, proxy-revalidate"), etag],
            request: [("Cache-Control", "max-stale")],
            elapsed: 61, expected: .mustRevalidate(conditionalHeaders: etagOnly, why: .mustRevalidateDirective)),
        Case(
            rule: "§5.2.2.10: s-maxage implies proxy-revalidate",
            response: [("Cache-Control", "s-maxage=60"), etag], request: [("Cache-Control", "max-stale")],
            elapsed: 61, expected: .mustRevalidate(conditionalHeaders: etagOnly, why: .mustRevalidateDirective)),
        Case(
            rule: "§5.2.2.2: must-revalidate does not affect a fresh response",
            response: [("Cache-Control", "max-age=60, must-revalidate")], elapsed: 59, expected: .fresh(age: 59, ttl: 1)
        ),
        Case(
            rule: "§5.2.2.2: must-revalidate beats stale-while-revalidate",
            response: [("Cache-Control", "max-age=60, must-revalidate, stale-while-revalidate=600"), etag], elapsed: 61,
            expected: .mustRevalidate(conditionalHeaders: etagOnly, why: .mustRevalidateDirective)),
        // stale-while-revalidate.
        Case(
            rule: "RFC 5861 §3: within stale-while-revalidate serves stale and refreshes",
            response: [("Cache-Control", "max-age=60, stale-while-revalidate=30"), etag], elapsed: 90,
            expected: .staleWhileRevalidate(age: 90, conditionalHeaders: etagOnly)),
        Case(
            rule: "RFC 5861 §3: past stale-while-revalidate revalidates",
            response: [("Cache-Control", "max-age=60, stale-while-revalidate=30"), etag], elapsed: 91,
            expected: .mustRevalidate(conditionalHeaders: etagOnly, why: .stale)),
        Case(
            rule: "filter staleWhileRevalidate widens the window",
            response: [("Cache-Control", "max-age=60, stale-while-revalidate=30")], elapsed: 200,
            overrides: PolicyOverrides(staleWhileRevalidate: 300),
            expected: .staleWhileRevalidate(age: 200, conditionalHeaders: HTTPHeaders())),
        // only-if-cached.
        Case(
            rule: "§5.2.1.7: only-if-cached serves a fresh response",
            response: [("Cache-Control", "max-age=60")], request: [("Cache-Control", "only-if-cached")], elapsed: 1,
            expected: .fresh(age: 1, ttl: 59)),
        Case(
            rule: "§5.2.1.7: only-if-cached with a stale response is a 504",
            response: [("Cache-Control", "max-age=60"), etag], request: [("Cache-Control", "only-if-cached")],
            elapsed: 61, expected: .onlyIfCachedMiss),
        Case(
            rule: "§5.2.1.7: only-if-cached with max-stale serves stale",
            response: [("Cache-Control", "max-age=60")], request: [("Cache-Control", "only-if-cached, max-stale")],
            elapsed: 61, expected: .staleAllowed(age: 61, why: .maxStale)),
        Case(
            rule: "§5.2.1.7: only-if-cached with no-cache is a 504",
            response: [("Cache-Control", "max-age=60")], request: [("Cache-Control", "only-if-cached, no-cache")],
            elapsed: 1, expected: .onlyIfCachedMiss),
        Case(
            rule: "§5.2.1.7: only-if-cached with an unusable response is a 504",
            response: [("Cache-Control", "max-age=60")],
            request: [("Cache-Control", "only-if-cached"), ("Authorization", "Basic x")], elapsed: 1,
            expected: .onlyIfCachedMiss),
    ]

    @Test(arguments: cases)
    func decisionFollowsSection4(_ testCase: Case) {
        let stored = Fixture.response(testCase.response, method: testCase.storedMethod)
        let decision = ServePolicy.decide(
            stored: stored, requestMethod: testCase.method, requestHeaders: HTTPHeaders(testCase.request),
            now: Fixture.t0 + testCase.elapsed, overrides: testCase.overrides)
        #expect(decision == testCase.expected)
    }
}
