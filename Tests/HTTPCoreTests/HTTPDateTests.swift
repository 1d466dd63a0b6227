import HTTPCore
import Testing

/// RFC 9110 §5.6.7: the three HTTP-date forms, IMF-fixdate output, and what is not a date.
@Suite struct HTTPDateTests {
    /// 1994-11-06T08:49:37Z, the RFC's own example.
    static let rfcExample: Int64 = 784_111_777

    @Test(
        arguments: [
            ("Sun, 06 Nov 1994 08:49:37 GMT", rfcExample),  // IMF-fixdate
            ("Sunday, 06-Nov-94 08:49:37 GMT", rfcExample),  // obsolete RFC 850
            ("Sun Nov  6 08:49:37 1994", rfcExample),  // asctime, day padded with a space
            ("Sun Nov 06 08:49:37 1994", rfcExample),  // asctime, two-digit day
            ("  Sun, 06 Nov 1994 08:49:37 GMT\t", rfcExample),  // OWS around the field value
            ("Thu, 01 Jan 1970 00:00:00 GMT", 0),
            ("Wed, 31 Dec 1969 23:59:59 GMT", -1),
            ("Tue, 19 Jan 2038 03:14:07 GMT", 2_147_483_647),  // the last 32-bit second
            ("Tue, 19 Jan 2038 03:14:08 GMT", 2_147_483_648),  // §5.6.7 asks for dates past 2038
            ("Fri, 01 Jan 2100 00:00:00 GMT", 4_102_444_800),
            ("Tue, 29 Feb 2000 12:00:00 GMT", 951_825_600),  // 2000 is a leap year
            ("Fri, 31 Dec 9999 23:59:59 GMT", 253_402_300_799),
            ("Sat, 31 Dec 2016 23:59:60 GMT", 1_483_228_800),  // a leap second lands on the next minute
            ("Mon, 06 Nov 1994 08:49:37 GMT", rfcExample),  // a wrong weekday is tolerated (documented)
        ] as [(String, Int64)])
    func validDatesParse(text: String, seconds: Int64) {
        #expect(HTTPDate(text)?.secondsSinceEpoch == seconds)
    }

    @Test(arguments: [
        "",
        "0",  // the classic invalid Expires
        "-1",
        "Sun, 06 Nov 1994 08:49:37",  // zone missing
        "Sun, 06 Nov 1994 08:49:37 UTC",  // only GMT is allowed
        "Sun, 06 Nov 1994 08:49:37 gmt",  // GMT is case-sensitive
        "sun, 06 Nov 1994 08:49:37 GMT",  // day names are case-sensitive
        "Sun, 06 nov 1994 08:49:37 GMT",
        "Sun, 6 Nov 1994 08:49:37 GMT",  // IMF-fixdate needs two-digit days
        "Sun, 06 Nov 94 08:49:37 GMT",  // and four-digit years
        "Sun, 06 Nov 1994 8:49:37 GMT",
        "Sun, 06 Nov 1994 24:00:00 GMT",  // hour out of range
        "Sun, 06 Nov 1994 08:60:00 GMT",
        "Sun, 06 Nov 1994 08:49:61 GMT",
        "Sun, 31 Nov 1994 08:49:37 GMT",  // November has 30 days
        "Sun, 29 Feb 1900 08:49:37 GMT",  // 1900 is not a leap year
        "Sun, 00 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 0000 08:49:37 GMT",
        "Sun, 06 Nov 1994 08:49:37 GMT junk",
        "Sun,  06 Nov 1994 08:49:37 GMT",  // double space
        "Sunday, 06 Nov 1994 08:49:37 GMT",  // long day name with the fixdate layout
        "Sun, 06-Nov-94 08:49:37 GMT",  // short day name with the RFC 850 layout
        "Sun Nov 6 08:49:37 1994",  // asctime needs the padding space
        "Sun Nov  6 08:49:37 94",
        "Sun, 06 Nov 1994 08:49:37 +0000",
        "1994-11-06T08:49:37Z",  // ISO 8601 is not an HTTP-date
        "Sun, 06 Nov 1994 08:49:3\u{0}7 GMT",
    ])
    func invalidDatesAreRejected(text: String) {
        #expect(HTTPDate(text) == nil)
    }

    @Test(arguments: [
        ("THU, 18 Aug 2050 02:01:18 GMT", "Thu, 18 Aug 2050 02:01:18 GMT"),
        ("Thu, 18 AUG 2050 02:01:18 GMT", "Thu, 18 Aug 2050 02:01:18 GMT"),
        ("Thu, 18 Aug 2050 02:01:18 gMT", "Thu, 18 Aug 2050 02:01:18 GMT"),
        ("sunday, 06-nov-94 08:49:37 gmt", "Sunday, 06-Nov-94 08:49:37 GMT"),
        ("SUN NOV  6 08:49:37 1994", "Sun Nov  6 08:49:37 1994"),
    ])
    func namesInAnyCaseParseOnlyWhenAskedFor(text: String, canonical: String) throws {
        #expect(HTTPDate(text) == nil, "the grammar is case-sensitive by default")
        let lenient = try #require(HTTPDate(text, ignoringCase: true))
        #expect(lenient == HTTPDate(canonical))
    }

    @Test(arguments: [
        "Thu, 18 Aug 2050 02:01:18 UTC", "THURSDAY, 18 AUG 2050 02:01:18 GMT", "Thu, 18 Aug 2050 02:01:18 GM",
        "Thx, 18 Aug 2050 02:01:18 GMT",
    ])
    func ignoringCaseStillRefusesWhatIsNotADate(text: String) {
        #expect(HTTPDate(text, ignoringCase: true) == nil)
    }

    @Test(
        arguments: [
            (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
            (784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"),
            (-1, "Wed, 31 Dec 1969 23:59:59 GMT"),
            (951_825_600, "Tue, 29 Feb 2000 12:00:00 GMT"),
            (2_147_483_648, "Tue, 19 Jan 2038 03:14:08 GMT"),
            (4_102_444_800, "Fri, 01 Jan 2100 00:00:00 GMT"),
            (253_402_300_799, "Fri, 31 Dec 9999 23:59:59 GMT"),
            (-62_135_596_800, "Mon, 01 Jan 0001 00:00:00 GMT"),
        ] as [(Int64, String)])
    func formattingProducesIMFFixdate(seconds: Int64, text: String) {
        #expect(HTTPDate(secondsSinceEpoch: seconds).imfFixdate == text)
    }

    @Test func formattingAndParsingRoundTripAcrossCenturies() {
        // Every 7919 hours from 1900 to 2200: a prime step visits all weekdays, months and leap cases.
        var seconds: Int64 = -2_208_988_800
        while seconds < 7_258_118_400 {
            let text = HTTPDate(secondsSinceEpoch: seconds).imfFixdate
            #expect(HTTPDate(text)?.secondsSinceEpoch == seconds, "\(text)")
            seconds += 7919 * 3600 + 17
        }
    }

    /// RFC 9110 §5.6.7: a two-digit year more than 50 years ahead belongs to the previous century.
    @Test(
        arguments: [
            ("Thursday, 01-Jan-70 00:00:00 GMT", nil, 0),
            ("Saturday, 01-Jan-00 00:00:00 GMT", nil, 946_684_800),
            // now = 2026-11-21: 76 means 2076 (exactly 50 years ahead), 77 means 1977.
            ("Wednesday, 01-Jan-76 00:00:00 GMT", 1_795_300_000, 3_345_062_400),
            ("Saturday, 01-Jan-77 00:00:00 GMT", 1_795_300_000, 220_924_800),
            ("Friday, 01-Jan-27 00:00:00 GMT", 1_795_300_000, 1_798_761_600),
        ] as [(String, Int64?, Int64)])
    func rfc850TwoDigitYearsArePlacedRelativeToNow(text: String, now: Int64?, seconds: Int64) {
        #expect(HTTPDate(text, now: now)?.secondsSinceEpoch == seconds)
    }

    @Test func datesCompareByInstant() {
        #expect(HTTPDate(secondsSinceEpoch: 1) < HTTPDate(secondsSinceEpoch: 2))
        #expect(HTTPDate("Sun Nov  6 08:49:37 1994") == HTTPDate("Sun, 06 Nov 1994 08:49:37 GMT"))
    }
}
