/// A cursor over the bytes of one `HTTP-date`, with one parse method per form of
/// [RFC 9110 §5.6.7](https://www.rfc-editor.org/rfc/rfc9110#section-5.6.7). Each method consumes the
/// whole input or fails. It reads borrowed storage and must not outlive the closure that lent it.
struct DateScanner {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    /// Whether day names, month names and `GMT` match in any case.
    private let ignoringCase: Bool

    init(bytes: UnsafeBufferPointer<UInt8>, ignoringCase: Bool = false) {
        self.bytes = bytes
        self.ignoringCase = ignoringCase
    }

    /// Tries the three forms in turn; the seconds since the epoch of the first that fits.
    static func epochSeconds(of bytes: UnsafeBufferPointer<UInt8>, now: Int64?, ignoringCase: Bool) -> Int64? {
        var imf = DateScanner(bytes: bytes, ignoringCase: ignoringCase)
        if let seconds = imf.parseIMFFixdate() { return seconds }
        var rfc850 = DateScanner(bytes: bytes, ignoringCase: ignoringCase)
        if let seconds = rfc850.parseRFC850(now: now) { return seconds }
        var asctime = DateScanner(bytes: bytes, ignoringCase: ignoringCase)
        return asctime.parseAsctime()
    }

    /// Whether two bytes match, folding ASCII case when the scanner ignores it.
    private func same(_ byte: UInt8, _ expected: UInt8) -> Bool {
        byte == expected || (ignoringCase && byte.asciiLowercased == expected.asciiLowercased)
    }

    /// `IMF-fixdate = day-name "," SP day SP month SP year SP time-of-day SP "GMT"`.
    mutating func parseIMFFixdate() -> Int64? {
        guard scanName(HTTPDate.dayNameBytes) != nil, scan(","), scan(" "),
            let day = scanDigits(2), scan(" "),
            let month = scanName(HTTPDate.monthNameBytes), scan(" "),
            let year = scanDigits(4), scan(" "),
            let time = scanTimeOfDay(), scan(" GMT"), atEnd
        else { return nil }
        return Self.epochSeconds(year: year, month: Int64(month + 1), day: day, time: time)
    }

    /// `rfc850-date = day-name-l "," SP day "-" month "-" 2DIGIT SP time-of-day SP "GMT"`.
    mutating func parseRFC850(now: Int64?) -> Int64? {
        guard scanName(HTTPDate.longDayNameBytes) != nil, scan(","), scan(" "),
            let day = scanDigits(2), scan("-"),
            let month = scanName(HTTPDate.monthNameBytes), scan("-"),
            let shortYear = scanDigits(2), scan(" "),
            let time = scanTimeOfDay(), scan(" GMT"), atEnd
        else { return nil }
        return Self.epochSeconds(
            year: Self.fullYear(twoDigits: shortYear, now: now), month: Int64(month + 1), day: day, time: time)
    }

    /// `asctime-date = day-name SP month SP ( 2DIGIT / ( SP DIGIT ) ) SP time-of-day SP year`.
    mutating func parseAsctime() -> Int64? {
        guard scanName(HTTPDate.dayNameBytes) != nil, scan(" "),
            let month = scanName(HTTPDate.monthNameBytes), scan(" ")
        else { return nil }
        let day: Int64
        if scan(" ") {
            guard let digit = scanDigits(1) else { return nil }
            day = digit
        } else {
            guard let digits = scanDigits(2) else { return nil }
            day = digits
        }
        guard scan(" "), let time = scanTimeOfDay(), scan(" "), let year = scanDigits(4), atEnd else { return nil }
        return Self.epochSeconds(year: year, month: Int64(month + 1), day: day, time: time)
    }

    private var atEnd: Bool { index == bytes.endIndex }

    /// Consumes the literal when it comes next (case-sensitive, as the grammar's `%s` strings are, unless
    /// the scanner ignores case).
    private mutating func scan(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard bytes.endIndex - index >= count else { return false }
        let matches = literal.withUTF8Buffer { buffer in
            buffer.indices.allSatisfy { same(bytes[index + $0], buffer[$0]) }
        }
        if matches { index += count }
        return matches
    }

    /// Consumes one of the names and returns its position in the list.
    private mutating func scanName(_ names: [[UInt8]]) -> Int? {
        for position in names.indices {
            let name = names[position]
            guard bytes.endIndex - index >= name.count else { continue }
            var matches = true
            for offset in name.indices where !same(bytes[index + offset], name[offset]) {
                matches = false
                break
            }
            if matches {
                index += name.count
                return position
            }
        }
        return nil
    }

    /// Consumes exactly `count` ASCII digits.
    private mutating func scanDigits(_ count: Int) -> Int64? {
        guard bytes.endIndex - index >= count else { return nil }
        var value: Int64 = 0
        for offset in 0..<count {
            let byte = bytes[index + offset]
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            value = value * 10 + Int64(byte - 0x30)
        }
        index += count
        return value
    }

    /// `time-of-day = hour ":" minute ":" second`, returned as seconds into the day. A leap second
    /// (`:60`) is accepted and lands on the next minute's first second.
    private mutating func scanTimeOfDay() -> Int64? {
        guard let hour = scanDigits(2), hour < 24, scan(":"),
            let minute = scanDigits(2), minute < 60, scan(":"),
            let second = scanDigits(2), second <= 60
        else { return nil }
        return hour * 3600 + minute * 60 + second
    }

    private static func epochSeconds(year: Int64, month: Int64, day: Int64, time: Int64) -> Int64? {
        guard year >= 1, day >= 1, day <= HTTPDate.daysInMonth(year: year, month: month) else { return nil }
        return HTTPDate.daysFromCivil(year: year, month: month, day: day) * 86_400 + time
    }

    /// Places an RFC 850 two-digit year (RFC 9110 §5.6.7): a year more than 50 years after `now` is
    /// the most recent past year with the same last two digits.
    private static func fullYear(twoDigits: Int64, now: Int64?) -> Int64 {
        guard let now else { return twoDigits >= 70 ? 1900 + twoDigits : 2000 + twoDigits }
        let currentYear = HTTPDate.civilFromDays(HTTPDate.floorDivide(now, 86_400)).year
        var year = HTTPDate.floorDivide(currentYear, 100) * 100 + twoDigits
        if year > currentYear + 50 { year -= 100 }
        if year <= currentYear - 50 { year += 100 }
        return year
    }
}
