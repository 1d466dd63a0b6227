/// An HTTP timestamp: whole seconds since 1970-01-01T00:00:00Z, read from and written as the
/// `HTTP-date` grammar of [RFC 9110 §5.6.7](https://www.rfc-editor.org/rfc/rfc9110#section-5.6.7).
///
/// Parsing accepts the three forms a recipient must accept: IMF-fixdate
/// (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete RFC 850 form (`Sunday, 06-Nov-94 08:49:37 GMT`)
/// and ANSI C's asctime form (`Sun Nov  6 08:49:37 1994`). Formatting always produces IMF-fixdate.
/// The arithmetic is proleptic Gregorian on `Int64`, so dates past 2038 and before 1970 work, and
/// nothing here reads the clock or uses Foundation.
///
/// The grammar is applied as written (case-sensitive names, `GMT`, exact digit counts), with one
/// leniency: the day name must be a valid one but is not checked against the date, since a wrong
/// weekday carries no ambiguity about the instant meant. Callers reading a field that may be parsed
/// robustly (`Expires`) can also ask for names in any case.
public struct HTTPDate: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Seconds since the Unix epoch (negative before 1970).
    public var secondsSinceEpoch: Int64

    /// Creates a date from seconds since the Unix epoch.
    public init(secondsSinceEpoch: Int64) {
        self.secondsSinceEpoch = secondsSinceEpoch
    }

    /// Parses an `HTTP-date` in any of its three forms
    /// ([RFC 9110 §5.6.7](https://www.rfc-editor.org/rfc/rfc9110#section-5.6.7)).
    ///
    /// - Parameters:
    ///   - text: The field value, optionally surrounded by spaces or tabs.
    ///   - now: The current time, used only to place an RFC 850 two-digit year: one that would be more
    ///     than 50 years in the future is taken as the most recent past year with those digits. Without
    ///     it, 70–99 mean 1970–1999 and 00–69 mean 2000–2069.
    ///   - ignoringCase: Whether day names, month names and `GMT` may come in any case (`THU`, `AUG`,
    ///     `gmt`). The grammar is case-sensitive, but §5.6.7 encourages recipients to be robust where the
    ///     field allows it: `Expires` does; a conditional's date (`If-Modified-Since`, §13.1.3 "MUST ignore
    ///     … not a valid HTTP-date") does not.
    /// - Returns: `nil` when the text is not a valid `HTTP-date`.
    public init?(_ text: some StringProtocol, now: Int64? = nil, ignoringCase: Bool = false) {
        var copy = String(text)
        let parsed = copy.withUTF8 { bytes -> Int64? in
            var start = 0
            var end = bytes.count
            while start < end && (bytes[start] == 0x20 || bytes[start] == 0x09) { start += 1 }
            while end > start && (bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09) { end -= 1 }
            return DateScanner.epochSeconds(
                of: UnsafeBufferPointer(rebasing: bytes[start..<end]), now: now, ignoringCase: ignoringCase)
        }
        guard let parsed else { return nil }
        self.secondsSinceEpoch = parsed
    }

    /// The date as an IMF-fixdate, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`
    /// ([RFC 9110 §5.6.7](https://www.rfc-editor.org/rfc/rfc9110#section-5.6.7)).
    public var imfFixdate: String {
        let days = Self.floorDivide(secondsSinceEpoch, 86_400)
        let secondOfDay = secondsSinceEpoch - days * 86_400
        let (year, month, day) = Self.civilFromDays(days)
        // 1970-01-01 was a Thursday (index 4 with Sunday as 0).
        let weekday = Int(Self.floorModulo(days + 4, 7))
        var out = Self.dayNames[weekday] + ", "
        out += Self.twoDigits(day) + " " + Self.monthNames[Int(month) - 1] + " "
        out += Self.fourDigits(year) + " "
        out += Self.twoDigits(secondOfDay / 3600) + ":" + Self.twoDigits(secondOfDay / 60 % 60) + ":"
        out += Self.twoDigits(secondOfDay % 60) + " GMT"
        return out
    }

    /// The IMF-fixdate form.
    public var description: String { imfFixdate }

    /// Earlier instants order first.
    public static func < (lhs: HTTPDate, rhs: HTTPDate) -> Bool {
        lhs.secondsSinceEpoch < rhs.secondsSinceEpoch
    }

    static let dayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let longDayNames = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    static let dayNameBytes = dayNames.map { Array($0.utf8) }
    static let longDayNameBytes = longDayNames.map { Array($0.utf8) }
    static let monthNameBytes = monthNames.map { Array($0.utf8) }

    /// Days since 1970-01-01 of a proleptic Gregorian date (the well-known era-based arithmetic:
    /// 400-year eras of 146 097 days, years counted from March so the leap day comes last).
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = floorDivide(shiftedYear, 400)
        let yearOfEra = shiftedYear - era * 400
        let monthFromMarch = (month + 9) % 12
        let dayOfYear = (153 * monthFromMarch + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date of a day count since 1970-01-01; the inverse of `daysFromCivil`.
    static func civilFromDays(_ days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = floorDivide(shifted, 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    /// The number of days in a month of a proleptic Gregorian year.
    static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2:
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            return leap ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let quotient = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? quotient - 1 : quotient
    }

    static func floorModulo(_ a: Int64, _ b: Int64) -> Int64 {
        a - floorDivide(a, b) * b
    }

    private static func twoDigits(_ value: Int64) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }

    private static func fourDigits(_ value: Int64) -> String {
        guard value >= 0 && value < 1000 else { return "\(value)" }
        let text = "\(value)"
        return String(repeating: "0", count: 4 - text.count) + text
    }
}
