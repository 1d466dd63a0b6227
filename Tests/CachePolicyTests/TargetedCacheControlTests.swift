import CacheCore
import CachePolicy
import Foundation
import HTTPCore
import Testing

/// RFC 9213 targeted cache-control fields: the first valid field on the target list replaces
/// `Cache-Control` and `Expires` for storing and freshness; an invalid or empty one is ignored.
@Suite struct TargetedCacheControlTests {
    static let cdn = TargetedCacheControl.standard
    static let larderFirst = TargetedCacheControl(fieldNames: ["Larder-Cache-Control", "CDN-Cache-Control"])

    static func facts(_ fields: [(String, String)], targets: TargetedCacheControl = cdn) -> ResponseFacts {
        var headers = HTTPHeaders(fields)
        if !headers.contains("Date") { headers.add(name: "Date", value: Fixture.date(0)) }
        return ResponseFacts(
            status: 200, headers: headers, requestTime: Fixture.t0, responseTime: Fixture.t0, targets: targets)
    }

    struct LifetimeCase: CustomTestStringConvertible, Sendable {
        var rule: String
        var fields: [(String, String)]
        var targets = TargetedCacheControlTests.cdn
        var seconds: Int64
        var source: FreshnessLifetime.Source
        var governing: String?
        var testDescription: String { rule }
    }

    static let lifetimes: [LifetimeCase] = [
        LifetimeCase(
            rule: "CDN max-age alone", fields: [("CDN-Cache-Control", "max-age=3600")], seconds: 3600,
            source: .maxAge, governing: "CDN-Cache-Control"),
        LifetimeCase(
            rule: "a long CDN max-age beats a short Cache-Control max-age",
            fields: [("Cache-Control", "max-age=1"), ("CDN-Cache-Control", "max-age=3600")], seconds: 3600,
            source: .maxAge, governing: "CDN-Cache-Control"),
        LifetimeCase(
            rule: "a short CDN max-age beats a long Cache-Control max-age",
            fields: [("Cache-Control", "max-age=3600"), ("CDN-Cache-Control", "max-age=1")], seconds: 1,
            source: .maxAge, governing: "CDN-Cache-Control"),
        LifetimeCase(
            rule: "a CDN max-age ignores a past Expires",
            fields: [("CDN-Cache-Control", "max-age=3600"), ("Expires", Fixture.date(-10_000))], seconds: 3600,
            source: .maxAge, governing: "CDN-Cache-Control"),
        LifetimeCase(
            rule: "CDN max-age=0 ignores a future Expires",
            fields: [("CDN-Cache-Control", "max-age=0"), ("Expires", Fixture.date(10_000))], seconds: 0,
            source: .maxAge, governing: "CDN-Cache-Control"),
        LifetimeCase(
            rule: "a CDN field without max-age ignores Expires: no explicit lifetime",
            fields: [("CDN-Cache-Control", "must-revalidate"), ("Expires", Fixture.date(10_000))], seconds: 0,
            source: .none, governing: "CDN-Cache-Control"),
        LifetimeCase(
            rule: "max-age past 2^31 is clamped", fields: [("CDN-Cache-Control", "max-age=99999999999")],
            seconds: 2_147_483_648, source: .maxAge, governing: "CDN-Cache-Control"),
        LifetimeCase(
            rule: "an extension directive is ignored", fields: [("CDN-Cache-Control", "foobar, max-age=3600")],
            seconds: 3600, source: .maxAge, governing: "CDN-Cache-Control"),
        LifetimeCase(
            rule: "space before = makes the field invalid: Cache-Control applies",
            fields: [("Cache-Control", "max-age=1"), ("CDN-Cache-Control", "max-age =100")], seconds: 1,
            source: .maxAge),
        LifetimeCase(
            rule: "space after = makes the field invalid: Cache-Control applies",
            fields: [("Cache-Control", "max-age=1"), ("CDN-Cache-Control", "max-age= 100")], seconds: 1,
            source: .maxAge),
        LifetimeCase(
            rule: "a string max-age is the wrong type: the field is ignored, Expires applies",
            fields: [("CDN-Cache-Control", "max-age=\"10000\""), ("Expires", Fixture.date(50))], seconds: 50,
            source: .expires),
        LifetimeCase(
            rule: "a negative max-age is the wrong value: the field is ignored",
            fields: [("Cache-Control", "max-age=7"), ("CDN-Cache-Control", "max-age=-1")], seconds: 7,
            source: .maxAge),
        LifetimeCase(
            rule: "a decimal max-age is not coerced: the field is ignored",
            fields: [("Cache-Control", "max-age=7"), ("CDN-Cache-Control", "max-age=1.5")], seconds: 7,
            source: .maxAge),
        LifetimeCase(
            rule: "an empty field is ignored", fields: [("Cache-Control", "max-age=7"), ("CDN-Cache-Control", "")],
            seconds: 7, source: .maxAge),
        LifetimeCase(
            rule: "upper-case keys are not a dictionary: the field is ignored",
            fields: [("Cache-Control", "max-age=7"), ("CDN-Cache-Control", "MaX-aGe=3600")], seconds: 7,
            source: .maxAge),
        LifetimeCase(
            rule: "a field not on the list changes nothing",
            fields: [("Cache-Control", "max-age=7"), ("Larder-Cache-Control", "max-age=3600")], seconds: 7,
            source: .maxAge),
        LifetimeCase(
            rule: "the first field on the list wins",
            fields: [("CDN-Cache-Control", "max-age=60"), ("Larder-Cache-Control", "max-age=3600")],
            targets: larderFirst, seconds: 3600, source: .maxAge, governing: "Larder-Cache-Control"),
        LifetimeCase(
            rule: "an invalid first field falls to the next on the list",
            fields: [("CDN-Cache-Control", "max-age=60"), ("Larder-Cache-Control", "max-age=x")],
            targets: larderFirst, seconds: 60, source: .maxAge, governing: "CDN-Cache-Control"),
        LifetimeCase(
            rule: "an empty target list keeps Cache-Control",
            fields: [("Cache-Control", "max-age=7"), ("CDN-Cache-Control", "max-age=3600")],
            targets: TargetedCacheControl(fieldNames: []), seconds: 7, source: .maxAge),
    ]

    @Test(arguments: lifetimes)
    func freshnessLifetimeFollowsTheGoverningField(_ testCase: LifetimeCase) {
        let facts = Self.facts(testCase.fields, targets: testCase.targets)
        let lifetime = facts.originFreshnessLifetime()
        #expect(lifetime.seconds == testCase.seconds)
        #expect(lifetime.source == testCase.source)
        #expect(facts.targetedField == testCase.governing)
    }

    @Test func ageBeyondTheCDNMaxAgeIsStale() {
        let facts = Self.facts([("CDN-Cache-Control", "max-age=3600"), ("Age", "7200")])
        #expect(!facts.isFresh(now: Fixture.t0))
    }

    struct StoreCase: CustomTestStringConvertible, Sendable {
        var rule: String
        var status = 200
        var fields: [(String, String)]
        var expected: StorabilityDecision
        var testDescription: String { rule }
    }

    static let storing: [StoreCase] = [
        StoreCase(
            rule: "CDN max-age stores despite Cache-Control no-store",
            fields: [("Cache-Control", "no-store"), ("CDN-Cache-Control", "max-age=10000")], expected: .store),
        StoreCase(
            rule: "CDN no-store refuses despite Cache-Control max-age and Expires",
            fields: [
                ("Cache-Control", "max-age=10000"), ("CDN-Cache-Control", "no-store"),
                ("Expires", Fixture.date(10_000)),
            ],
            expected: .doNotStore(.responseNoStore)),
        StoreCase(
            rule: "CDN private refuses",
            fields: [("CDN-Cache-Control", "private"), ("Cache-Control", "max-age=10000")],
            expected: .doNotStore(.privateResponse)),
        StoreCase(
            rule: "CDN private with a field list refuses",
            fields: [("CDN-Cache-Control", "private=\"set-cookie\""), ("Cache-Control", "max-age=10000")],
            expected: .doNotStore(.privateResponse)),
        StoreCase(
            rule: "an invalid CDN field leaves Cache-Control's no-store",
            fields: [("CDN-Cache-Control", "max-age=10000, &&&&&"), ("Cache-Control", "no-store")],
            expected: .doNotStore(.responseNoStore)),
        StoreCase(
            rule: "a wrong-typed CDN max-age leaves Cache-Control's no-store",
            fields: [("CDN-Cache-Control", "max-age=\"10000\""), ("Cache-Control", "no-store")],
            expected: .doNotStore(.responseNoStore)),
        StoreCase(
            rule: "a wrong-typed CDN no-store is ignored whole",
            fields: [("CDN-Cache-Control", "no-store=5"), ("Cache-Control", "max-age=60")], expected: .store),
        StoreCase(
            rule: "no-store=?0 is no no-store",
            fields: [("CDN-Cache-Control", "no-store=?0, max-age=60"), ("Cache-Control", "no-store")], expected: .store),
        StoreCase(
            rule: "Expires does not make a CDN-governed 299 explicitly cacheable", status: 299,
            fields: [("CDN-Cache-Control", "must-revalidate"), ("Expires", Fixture.date(60))],
            expected: .doNotStore(.noFreshnessInformation)),
    ]

    @Test(arguments: storing)
    func storabilityFollowsTheGoverningField(_ testCase: StoreCase) {
        let decision = Storability.evaluate(
            requestMethod: .get, requestHeaders: HTTPHeaders(), status: testCase.status,
            responseHeaders: HTTPHeaders(testCase.fields), targets: Self.cdn)
        #expect(decision == testCase.expected)
    }

    @Test func noCacheInTheCDNFieldRequiresRevalidation() {
        let facts = Self.facts([
            ("CDN-Cache-Control", "no-cache"), ("Cache-Control", "max-age=10000"), ("ETag", "\"v\""),
        ])
        #expect(facts.cacheControl.noCache)
        #expect(!facts.cacheControl.maxAge.isPresent)
    }

    @Test func mustRevalidateInTheCDNFieldForbidsServingStale() {
        let facts = Self.facts([("CDN-Cache-Control", "max-age=1, must-revalidate"), ("Cache-Control", "max-age=60")])
        #expect(facts.cacheControl.mustRevalidate)
        #expect(StaleIfDisconnected.allowance(for: facts, window: 86_400) == 0)
    }

    @Test func refreshedFactsKeepTheirTargetList() {
        let facts = Self.facts([("Larder-Cache-Control", "max-age=90")], targets: Self.larderFirst)
        let refreshed = facts.refreshed(
            headers: facts.headers, requestTime: Fixture.t0 + 5, responseTime: Fixture.t0 + 5)
        #expect(refreshed.targetedField == "Larder-Cache-Control")
        #expect(refreshed.originFreshnessLifetime().seconds == 90)
    }

    @Test func aStoredEntryIsReadWithTheListOfTheCacheReadingIt() {
        let sent = Date(timeIntervalSince1970: Double(Fixture.t0))
        let fields = [
            ("Date", Fixture.date(0)), ("Larder-Cache-Control", "max-age=90"), ("CDN-Cache-Control", "max-age=30"),
            ("Cache-Control", "max-age=10"),
        ]
        let entry = StoredEntry.recording(
            status: HTTPStatus(code: 200), headers: HTTPHeaders(fields), url: "https://example.com/t",
            requestHeaders: HTTPHeaders(), requestTime: sent, responseTime: sent, filterName: nil, imageFormat: nil,
            lifetimes: StoredEntry.Lifetimes(
                overrides: .none, staleIfDisconnected: 0, revalidationAllowance: 0, targets: Self.larderFirst),
            varyNames: Vary.names(in: HTTPHeaders(fields)))
        #expect(entry.freshnessLifetime == 90)
        #expect(entry.facts(targets: Self.larderFirst).originFreshnessLifetime().seconds == 90)
        #expect(entry.facts(targets: Self.cdn).originFreshnessLifetime().seconds == 30)
        #expect(entry.facts(targets: TargetedCacheControl(fieldNames: [])).originFreshnessLifetime().seconds == 10)
    }
}
