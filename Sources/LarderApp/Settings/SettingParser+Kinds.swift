public import CachePolicy
public import Upstream

// The kinds of value `larder serve` takes. Each says in its rejection what it expected, so that every
// setting of a kind fails with the same sentence.

extension SettingParser where Value == String {
    /// Any text, as given.
    /// - Parameter valueName: the placeholder in usage lines (`path`, `address`).
    public static func text(_ valueName: String) -> Self {
        Self(valueName: valueName) { text in text }
    }

    /// A token of letters, digits, `-`, `.` and `_` (RFC 9110 §5.6.2 allows more; this is what a `Via`
    /// pseudonym needs, and nothing that could break a header).
    public static var token: Self {
        Self(valueName: "token") { text throws(SettingRejection) in
            guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._".contains($0)) })
            else { throw SettingRejection(text: text, expected: "a token (letters, digits, '-', '.', '_')") }
            return text
        }
    }
}

extension SettingParser where Value == String? {
    /// Text where empty means none (`nil`).
    /// - Parameter valueName: the placeholder in usage lines.
    public static func optionalText(_ valueName: String) -> Self {
        Self(valueName: valueName) { text in text.isEmpty ? nil : text }
    }
}

extension SettingParser where Value == Int {
    /// A decimal integer inside `range`.
    /// - Parameter range: the values accepted.
    public static func integer(in range: ClosedRange<Int>) -> Self {
        Self(valueName: "n") { text throws(SettingRejection) in
            guard let value = Int(text), range.contains(value) else {
                throw SettingRejection(text: text, expected: "an integer in \(range.lowerBound)...\(range.upperBound)")
            }
            return value
        }
    }

    /// A size in bytes (see `byteCount(_:)`); 0 is a valid size, which a setting may read as "off".
    public static var size: Self {
        Self(valueName: "size") { text throws(SettingRejection) in
            guard let bytes = byteCount(text) else {
                throw SettingRejection(text: text, expected: "a size in bytes (e.g. 500M, 2G, 0 for none)")
            }
            return bytes
        }
    }

    /// A size in bytes above 0.
    public static var positiveSize: Self {
        Self(valueName: "size") { text throws(SettingRejection) in
            guard let bytes = byteCount(text), bytes > 0 else {
                throw SettingRejection(text: text, expected: "a size in bytes above 0 (e.g. 256M, 2G)")
            }
            return bytes
        }
    }
}

extension SettingParser where Value == Int? {
    /// A bound in bytes where 0 means no bound (`nil`).
    public static var sizeBound: Self {
        Self(valueName: "size") { text throws(SettingRejection) in
            guard let bytes = byteCount(text) else {
                throw SettingRejection(text: text, expected: "a size in bytes (e.g. 500M, 2G, 0 for none)")
            }
            return bytes == 0 ? nil : bytes
        }
    }
}

extension SettingParser where Value == Double {
    /// A finite number of seconds, 0 or more (fractions allowed, so that tests can use short values).
    public static var seconds: Self {
        Self(valueName: "seconds") { text throws(SettingRejection) in
            guard let value = Double(text), value.isFinite, value >= 0 else {
                throw SettingRejection(text: text, expected: "a number of seconds")
            }
            return value
        }
    }

    /// A finite number of seconds above 0.
    public static var positiveSeconds: Self {
        Self(valueName: "seconds") { text throws(SettingRejection) in
            guard let value = Double(text), value.isFinite, value > 0 else {
                throw SettingRejection(text: text, expected: "a positive number of seconds")
            }
            return value
        }
    }
}

extension SettingParser where Value == Int64 {
    /// A whole number of seconds, 0 or more, optionally with an `s`, `m`, `h` or `d` suffix (`90`, `15m`,
    /// `1d`), in any case, blanks around it ignored.
    public static var duration: Self {
        Self(valueName: "duration") { text throws(SettingRejection) in
            guard let seconds = durationSeconds(text) else {
                throw SettingRejection(text: text, expected: "a duration in seconds, or with s, m, h, d (e.g. 1d, 0)")
            }
            return seconds
        }
    }
}

extension SettingParser where Value == Bool {
    /// `true`, `1`, `yes`, `on` or `false`, `0`, `no`, `off`, in any case.
    public static var boolean: Self {
        Self(valueName: "bool") { text throws(SettingRejection) in
            switch text.lowercased() {
            case "true", "1", "yes", "on": return true
            case "false", "0", "no", "off": return false
            default: throw SettingRejection(text: text, expected: "true or false")
            }
        }
    }
}

extension SettingParser where Value: RawRepresentable<String> & CaseIterable {
    /// One of an enumeration's raw values, in any case.
    /// - Parameter valueName: the placeholder in usage lines (`format`, `level`).
    public static func choice(_ valueName: String) -> Self {
        let names = Value.allCases.map(\.rawValue).joined(separator: ", ")
        return Self(valueName: valueName) { text throws(SettingRejection) in
            guard let value = Value(rawValue: text.lowercased()) else {
                throw SettingRejection(text: text, expected: "one of \(names)")
            }
            return value
        }
    }
}

extension SettingParser {
    /// The items of a comma-separated value, each parsed by `item`: blanks around items are ignored, empty
    /// items skipped, and empty text is an empty list. The first item `item` rejects stops the parse.
    static func commaSeparated<Element>(
        _ text: String, _ item: (Substring) throws(SettingRejection) -> Element
    ) throws(SettingRejection) -> [Element] {
        var elements: [Element] = []
        for part in text.split(separator: ",") {
            let trimmed = part.trimmingBlanks
            guard !trimmed.isEmpty else { continue }
            elements.append(try item(trimmed))
        }
        return elements
    }
}

extension SettingParser where Value == [CIDR] {
    /// Comma-separated CIDRs (`10.0.0.0/8,fd00::/8`); blanks around and between items are ignored, and
    /// empty text is an empty list. A bad item is named on its own.
    public static var cidrList: Self {
        Self(valueName: "cidr") { text throws(SettingRejection) in
            try commaSeparated(text) { item throws(SettingRejection) in
                guard let network = CIDR(item) else {
                    throw SettingRejection(text: String(item), expected: "a CIDR (e.g. 10.0.0.0/8, fd00::/8)")
                }
                return network
            }
        }
    }
}

extension SettingParser where Value == TargetedCacheControl {
    /// Comma-separated header field names (RFC 9110 §5.1 tokens), most applicable first; blanks around items
    /// are ignored and empty text is an empty list. A bad or repeated name is named on its own.
    public static var fieldNameList: Self {
        Self(valueName: "fields") { text throws(SettingRejection) in
            var seen: Set<String> = []
            let names = try SettingParser<[String]>.commaSeparated(text) { item throws(SettingRejection) in
                let name = String(item)
                guard name.utf8.allSatisfy(isFieldNameByte) else {
                    throw SettingRejection(text: name, expected: "a header field name (RFC 9110 token)")
                }
                guard seen.insert(name.lowercased()).inserted else {
                    throw SettingRejection(text: name, expected: "a field name not listed before")
                }
                return name
            }
            return TargetedCacheControl(fieldNames: names)
        }
    }
}

/// `tchar` of RFC 9110 §5.6.2: what a field name is made of.
private func isFieldNameByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"):
        true
    default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
    }
}

/// Reads a size: a non-negative integer of bytes, optionally with a K, M, G or T suffix (powers of 1024)
/// and an optional trailing `B` or `iB`, in any case, blanks around it ignored. Fractions (`1.5G`) are
/// refused: a size is a whole number of units.
/// - Parameter text: the value as given.
/// - Returns: the number of bytes, or `nil` when the text is not a size or the size overflows.
func byteCount(_ text: String) -> Int? {
    var digits = Substring(text.trimmingBlanks.uppercased())
    if digits.hasSuffix("IB") {
        digits = digits.dropLast(2)
    } else if digits.hasSuffix("B") {
        digits = digits.dropLast()
    }
    var shift = 0
    if let unit = digits.last, let power = ["K", "M", "G", "T"].firstIndex(of: unit) {
        shift = 10 * (power + 1)
        digits = digits.dropLast()
    }
    guard let value = Int(digits), value >= 0, value <= (Int.max >> shift) else { return nil }
    return value << shift
}

/// Reads a duration: a non-negative whole number of seconds, optionally with an `s`, `m`, `h` or `d` suffix,
/// in any case, blanks around it ignored.
/// - Parameter text: the value as given.
/// - Returns: the number of seconds, or `nil` when the text is not a duration or it overflows.
func durationSeconds(_ text: String) -> Int64? {
    var digits = Substring(text.trimmingBlanks.lowercased())
    var unit: Int64 = 1
    if let last = digits.last, let scale = ["s": 1, "m": 60, "h": 3_600, "d": 86_400][last] {
        unit = Int64(scale)
        digits = digits.dropLast()
    }
    guard digits.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int64(digits) else { return nil }
    let (seconds, overflow) = value.multipliedReportingOverflow(by: unit)
    return overflow ? nil : seconds
}

extension StringProtocol {
    /// The text without spaces and tabs around it.
    var trimmingBlanks: SubSequence {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !blank($0) }), let last = lastIndex(where: { !blank($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
