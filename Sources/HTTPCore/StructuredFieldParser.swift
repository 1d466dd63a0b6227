/// Reads Structured Field values byte by byte, following the algorithms of
/// [RFC 8941 §4.2](https://www.rfc-editor.org/rfc/rfc8941#section-4.2); each `parse…` returns `nil` on the
/// first error. It reads the field value's own UTF-8 storage, so it must not outlive the closure that
/// lent it.
struct StructuredFieldParser {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// §4.2 "Parsing Structured Fields" for a dictionary: leading and trailing spaces dropped, then
    /// §4.2.2, and nothing may remain.
    mutating func parseDictionary() -> [(key: String, value: StructuredDictionary.Value)]? {
        var end = bytes.count
        while end > 0 && bytes[end - 1] == 0x20 { end -= 1 }
        skip { $0 == 0x20 }
        var members: [(key: String, value: StructuredDictionary.Value)] = []
        while index < end {
            guard let key = parseKey() else { return nil }
            let value: StructuredDictionary.Value
            if index < end && bytes[index] == UInt8(ascii: "=") {
                index += 1
                guard let member = parseItemOrInnerList() else { return nil }
                value = member
            } else {
                value = .boolean(true)
                guard parseParameters() else { return nil }
            }
            if let existing = members.firstIndex(where: { $0.key == key }) {
                members[existing].value = value
            } else {
                members.append((key, value))
            }
            skip { $0 == 0x20 || $0 == 0x09 }
            if index >= end { return members }
            guard bytes[index] == UInt8(ascii: ",") else { return nil }
            index += 1
            skip { $0 == 0x20 || $0 == 0x09 }
            // A trailing comma is an error (§4.2.2 step 2.9).
            if index >= end { return nil }
        }
        return members
    }

    /// §4.2.1.1: an inner list, or an item; parameters parsed and dropped.
    private mutating func parseItemOrInnerList() -> StructuredDictionary.Value? {
        if index < bytes.count && bytes[index] == UInt8(ascii: "(") {
            return parseInnerList()
        }
        guard let item = parseBareItem(), parseParameters() else { return nil }
        return item
    }

    /// §4.2.1.2.
    private mutating func parseInnerList() -> StructuredDictionary.Value? {
        index += 1
        var items: [StructuredDictionary.Value] = []
        while index < bytes.count {
            skip { $0 == 0x20 }
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: ")") {
                index += 1
                return parseParameters() ? .innerList(items) : nil
            }
            guard let item = parseBareItem(), parseParameters() else { return nil }
            items.append(item)
            guard index < bytes.count, bytes[index] == 0x20 || bytes[index] == UInt8(ascii: ")") else {
                return nil
            }
        }
        return nil
    }

    /// §4.2.3.2: `*( ";" *SP key [ "=" bare-item ] )`, checked and dropped.
    private mutating func parseParameters() -> Bool {
        while index < bytes.count && bytes[index] == UInt8(ascii: ";") {
            index += 1
            skip { $0 == 0x20 }
            guard parseKey() != nil else { return false }
            if index < bytes.count && bytes[index] == UInt8(ascii: "=") {
                index += 1
                guard parseBareItem() != nil else { return false }
            }
        }
        return true
    }

    /// §4.2.3.3: `( lcalpha / "*" ) *( lcalpha / DIGIT / "_" / "-" / "." / "*" )`.
    private mutating func parseKey() -> String? {
        guard index < bytes.count, Self.isLowercaseLetter(bytes[index]) || bytes[index] == UInt8(ascii: "*")
        else { return nil }
        let start = index
        skip { Self.isLowercaseLetter($0) || Self.isDigit($0) || "_-.*".utf8.contains($0) }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// §4.2.3.1.
    private mutating func parseBareItem() -> StructuredDictionary.Value? {
        guard index < bytes.count else { return nil }
        let byte = bytes[index]
        switch byte {
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return parseNumber()
        case UInt8(ascii: "\""): return parseString()
        case UInt8(ascii: "*"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
            return parseToken()
        case UInt8(ascii: ":"): return parseByteSequence()
        case UInt8(ascii: "?"): return parseBoolean()
        default: return nil
        }
    }

    /// §4.2.4: an integer of at most 15 digits, or a decimal of at most 12 integer and 3 fraction digits.
    private mutating func parseNumber() -> StructuredDictionary.Value? {
        let start = index
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        let digitsStart = index
        skip(Self.isDigit)
        let integerDigits = index - digitsStart
        guard integerDigits > 0 else { return nil }
        if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
            guard integerDigits <= 12 else { return nil }
            index += 1
            let fractionStart = index
            skip(Self.isDigit)
            guard (1...3).contains(index - fractionStart) else { return nil }
            return .decimal(String(decoding: bytes[start..<index], as: UTF8.self))
        }
        guard integerDigits <= 15 else { return nil }
        var value: Int64 = 0
        for digit in bytes[digitsStart..<index] { value = value * 10 + Int64(digit - 0x30) }
        return .integer(negative ? -value : value)
    }

    /// §4.2.5: printable ASCII between quotes; `\` escapes only `"` and `\`.
    private mutating func parseString() -> StructuredDictionary.Value? {
        let string = bytes.quotedString(
            at: &index, text: { (0x20...0x7E).contains($0) },
            escapable: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") })
        return string.map { .string($0) }
    }

    /// §4.2.6: `( ALPHA / "*" ) *( tchar / ":" / "/" )`.
    private mutating func parseToken() -> StructuredDictionary.Value? {
        let start = index
        index += 1
        skip(HTTPByteClass.isStructuredToken)
        return .token(String(decoding: bytes[start..<index], as: UTF8.self))
    }

    /// §4.2.7: base64 between colons.
    private mutating func parseByteSequence() -> StructuredDictionary.Value? {
        index += 1
        let start = index
        skip { Self.isLetter($0) || Self.isDigit($0) || "+/=".utf8.contains($0) }
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        index += 1
        return .byteSequence(text)
    }

    /// §4.2.8: `?0` or `?1`.
    private mutating func parseBoolean() -> StructuredDictionary.Value? {
        index += 1
        guard index < bytes.count else { return nil }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "1"): return .boolean(true)
        case UInt8(ascii: "0"): return .boolean(false)
        default: return nil
        }
    }

    private mutating func skip(_ predicate: (UInt8) -> Bool) {
        while index < bytes.count && predicate(bytes[index]) { index += 1 }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    private static func isLowercaseLetter(_ byte: UInt8) -> Bool { byte >= 0x61 && byte <= 0x7A }

    private static func isLetter(_ byte: UInt8) -> Bool { isLowercaseLetter(byte) || (byte >= 0x41 && byte <= 0x5A) }
}
