import CachePolicy
import HTTPCore
import Testing

/// RFC 9111 §4.2: freshness lifetime (§4.2.1), heuristics (§4.2.2), age (§4.2.3), filter overrides.
@Suite struct FreshnessTests {
    struct LifetimeCase: CustomTestStringConvertible, Sendable {
        var rule: String
        var status = 200
        var fields: [(String, String)]
        var overrides = PolicyOverrides.none
        var seconds: Int64
        var source: FreshnessLifetime.Source
        var testDescription: String { rule }
    }

    static let lifetimes: [LifetimeCase] = [
        LifetimeCase(rule: "§4.2.1: max-age", fields: [("Cache-Control", "max-age=60")], seconds: 60, source: .maxAge),
        LifetimeCase(
            rule: "§4.2.1: s-maxage wins over max-age in a shared cache",
            fields: [("Cache-Control", "max-age=60, s-maxage=5")], seconds: 5, source: .sMaxAge),
        LifetimeCase(
            rule: "§4.2.1: max-age wins over Expires",
            fields: [("Cache-Control", "max-age=60"), ("Expires", Fixture.date(600))], seconds: 60, source: .maxAge),
        LifetimeCase(
            rule: "§4.2.1: Expires minus Date", fields: [("Expires", Fixture.date(600))], seconds: 600, source: .expires
        ),
        LifetimeCase(
            rule: "§4.2.1: Expires before Date is zero",
            fields: [("Expires", Fixture.date(-600))], seconds: 0, source: .expires),
        LifetimeCase(
            rule: "§4.2.1: Expires uses Date, not the receive time",
            fields: [("Date", Fixture.date(-100)), ("Expires", Fixture.date(500))], seconds: 600, source: .expires),
        LifetimeCase(
            rule: "§5.3: Expires: 0 is already expired", fields: [("Expires", "0")], seconds: 0, source: .invalid),
        LifetimeCase(
            rule: "§5.6.7 robustness: an Expires with names in the wrong case is read",
            fields: [("Expires", "TUE, 14 NOV 2023 22:23:20 gmt")], seconds: 600, source: .expires),
        LifetimeCase(
            rule: "§4.2.1: two Expires lines are treated as stale",
            fields: [("Expires", Fixture.date(60)), ("Expires", Fixture.date(60))], seconds: 0, source: .invalid),
        LifetimeCase(
            rule: "§4.2.1: invalid max-age is stale, Expires not consulted",
            fields: [("Cache-Control", "max-age=1m"), ("Expires", Fixture.date(600))], seconds: 0, source: .invalid),
        LifetimeCase(
            rule: "§4.2.1: conflicting max-age is stale",
            fields: [("Cache-Control", "max-age=60, max-age=120")], seconds: 0, source: .invalid),
        LifetimeCase(
            rule: "§4.2.1: argument-less s-maxage is stale", fields: [("Cache-Control", "s-maxage")],
            seconds: 0, source: .invalid),
        LifetimeCase(
            rule: "§1.2.2: huge max-age clamps to 2^31",
            fields: [("Cache-Control", "max-age=99999999999")], seconds: 2_147_483_648, source: .maxAge),
        LifetimeCase(
            rule: "§4.2.2: heuristic is 10% of Date - Last-Modified",
            fields: [("Last-Modified", Fixture.date(-10_000))], seconds: 1000, source: .heuristic),
        LifetimeCase(
            rule: "§4.2.2: heuristic is capped at a day by default",
            fields: [("Last-Modified", Fixture.date(-10_000_000))], seconds: 86_400, source: .heuristic),
        LifetimeCase(
            rule: "§4.2.2: heuristic settings are honoured",
            fields: [("Last-Modified", Fixture.date(-10_000))],
            overrides: PolicyOverrides(heuristicPercent: 20, heuristicCap: 1500), seconds: 1500, source: .heuristic),
        LifetimeCase(
            rule: "§4.2.2: no heuristic for a status that is not heuristically cacheable", status: 302,
            fields: [("Last-Modified", Fixture.date(-10_000))], seconds: 0, source: .none),
        LifetimeCase(
            rule: "§4.2.2: public makes any status heuristically fresh", status: 302,
            fields: [("Cache-Control", "public"), ("Last-Modified", Fixture.date(-10_000))],
            seconds: 1000, source: .heuristic),
        LifetimeCase(
            rule: "§4.2.2: Last-Modified in the future gives no heuristic",
            fields: [("Last-Modified", Fixture.date(100))], seconds: 0, source: .none),
        LifetimeCase(
            rule: "§4.2.2: invalid Last-Modified gives no heuristic",
            fields: [("Last-Modified", "yesterday")], seconds: 0, source: .none),
        LifetimeCase(rule: "no freshness information at all", fields: [], seconds: 0, source: .none),
        LifetimeCase(
            rule: "filter ttl replaces the origin's", fields: [("Cache-Control", "max-age=60")],
            overrides: PolicyOverrides(ttl: 3600), seconds: 3600, source: .ttlOverride),
    ]

    @Test(arguments: lifetimes)
    func lifetimeFollowsSection4_2_1(_ testCase: LifetimeCase) {
        let facts = Fixture.response(status: testCase.status, testCase.fields)
        let lifetime = facts.freshnessLifetime(overrides: testCase.overrides)
        #expect(lifetime.seconds == testCase.seconds)
        #expect(lifetime.source == testCase.source)
    }

    @Test(
        arguments: [
            (PolicyOverrides(minTtl: 300), Int64(300), true),
            (PolicyOverrides(maxTtl: 30), 30, true),
            (PolicyOverrides(minTtl: 10, maxTtl: 100), 60, false),
            (PolicyOverrides(ttl: 5, minTtl: 10), 10, true),
        ] as [(PolicyOverrides, Int64, Bool)])
    func minAndMaxTtlClampTheLifetime(overrides: PolicyOverrides, seconds: Int64, clamped: Bool) {
        let lifetime = Fixture.response([("Cache-Control", "max-age=60")]).freshnessLifetime(overrides: overrides)
        #expect(lifetime.seconds == seconds)
        #expect(lifetime.isClamped == clamped)
    }

    struct AgeCase: CustomTestStringConvertible, Sendable {
        var rule: String
        var fields: [(String, String)]
        var delay: Int64 = 0
        var elapsed: Int64
        var age: Int64
        var testDescription: String { rule }
    }

    static let ages: [AgeCase] = [
        AgeCase(rule: "§4.2.3: resident time only", fields: [], elapsed: 30, age: 30),
        AgeCase(rule: "§4.2.3: Age header plus resident time", fields: [("Age", "100")], elapsed: 30, age: 130),
        AgeCase(rule: "§4.2.3: response delay corrects Age", fields: [("Age", "100")], delay: 4, elapsed: 0, age: 104),
        AgeCase(
            rule: "§4.2.3: apparent age from an old Date", fields: [("Date", Fixture.date(-50))], elapsed: 10, age: 60),
        AgeCase(
            rule: "§4.2.3: the larger of apparent and corrected age",
            fields: [("Date", Fixture.date(-50)), ("Age", "20")], elapsed: 0, age: 50),
        AgeCase(
            rule: "§4.2.3: a Date in the future gives no negative age", fields: [("Date", Fixture.date(500))],
            elapsed: 5, age: 5),
        AgeCase(rule: "§5.1: list-valued Age uses the first member", fields: [("Age", "7, 900")], elapsed: 0, age: 7),
        AgeCase(rule: "§5.1: invalid Age is ignored", fields: [("Age", "-3")], elapsed: 1, age: 1),
        AgeCase(rule: "missing Date: response time stands in", fields: [("Date", "")], elapsed: 9, age: 9),
        AgeCase(rule: "invalid Date: response time stands in", fields: [("Date", "not a date")], elapsed: 9, age: 9),
    ]

    @Test(arguments: ages)
    func currentAgeFollowsSection4_2_3(_ testCase: AgeCase) {
        let facts = Fixture.response(testCase.fields, delay: testCase.delay)
        #expect(facts.currentAge(now: Fixture.t0 + testCase.elapsed) == testCase.age)
    }

    @Test(
        arguments: [
            ([("Cache-Control", "max-age=5")], true), ([("Cache-Control", "s-maxage=x")], true),
            ([("Expires", "0")], true), ([("Cache-Control", "public")], false),
            ([("Last-Modified", "Sun, 06 Nov 1994 08:49:37 GMT")], false),
        ] as [([(String, String)], Bool)])
    func explicitExpirationIsAnyFormOfMaxAgeSMaxAgeOrExpires(fields: [(String, String)], expected: Bool) {
        // §4.2.2: a heuristic is forbidden whenever one of these is present, valid or not.
        #expect(Fixture.response(fields).hasExplicitExpiration == expected)
    }

    @Test func freshUntilAgeReachesLifetime() {
        let facts = Fixture.response([("Cache-Control", "max-age=60")])
        #expect(facts.isFresh(now: Fixture.t0 + 59))
        #expect(!facts.isFresh(now: Fixture.t0 + 60))
    }

    @Test func ageFieldValueClampsAt2To31() {
        let facts = Fixture.response([("Age", "2147483648")])
        #expect(facts.ageFieldValue(now: Fixture.t0 + 1000) == "2147483648")
        #expect(Fixture.response().ageFieldValue(now: Fixture.t0 + 12) == "12")
    }
}
