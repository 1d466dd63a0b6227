/// Byte classes of the HTTP and URI grammars (RFC 9110 §5.6, RFC 3986 §2–3), as 128-bit masks so that a
/// class test is two shifts and no table load. Bytes of 0x80 and above are in none of these classes.
enum HTTPByteClass {
    /// `tchar` (RFC 9110 §5.6.2): ALPHA, DIGIT and ``!#$%&'*+-.^_`|~``.
    static let token = (low: UInt64(0x03ff_6cfa_0000_0000), high: UInt64(0x57ff_ffff_c7ff_fffe))
    /// An sf-token's characters after the first (RFC 8941 §3.3.4): `tchar`, `:` and `/`.
    static let structuredToken = (low: UInt64(0x07ff_ecfa_0000_0000), high: UInt64(0x57ff_ffff_c7ff_fffe))
    /// `unreserved / sub-delims` (RFC 3986 §3.2.2 reg-name, without `%`, which starts pct-encoded).
    static let regName = (low: UInt64(0x2bff_7fd2_0000_0000), high: UInt64(0x47ff_fffe_87ff_fffe))
    /// `pchar / "/"` without `%` (RFC 3986 §3.3).
    static let path = (low: UInt64(0x2fff_ffd2_0000_0000), high: UInt64(0x47ff_fffe_87ff_ffff))
    /// `pchar / "/" / "?"` without `%` (RFC 3986 §3.4).
    static let query = (low: UInt64(0xafff_ffd2_0000_0000), high: UInt64(0x47ff_fffe_87ff_ffff))

    /// Whether the byte is in the class given by its two masks.
    @inline(__always)
    static func contains(_ byte: UInt8, _ mask: (low: UInt64, high: UInt64)) -> Bool {
        if byte < 64 { return (mask.low >> UInt64(byte)) & 1 == 1 }
        if byte < 128 { return (mask.high >> UInt64(byte &- 64)) & 1 == 1 }
        return false
    }

    /// Whether the byte is a `tchar`.
    @inline(__always)
    static func isToken(_ byte: UInt8) -> Bool { contains(byte, token) }

    /// Whether the byte may follow an sf-token's first character.
    @inline(__always)
    static func isStructuredToken(_ byte: UInt8) -> Bool { contains(byte, structuredToken) }

    /// Whether the byte may appear in a field value: VCHAR, obs-text, SP or HTAB (RFC 9110 §5.5).
    @inline(__always)
    static func isFieldValue(_ byte: UInt8) -> Bool {
        byte == 0x09 || (byte >= 0x20 && byte != 0x7F)
    }

    /// Whether the byte is SP or HTAB (RFC 9110 §5.6.3 OWS).
    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    /// The value of a hexadecimal digit, or `nil`.
    @inline(__always)
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte &- 0x30
        case 0x41...0x46: byte &- 0x41 &+ 10
        case 0x61...0x66: byte &- 0x61 &+ 10
        default: nil
        }
    }

    /// Whether the byte is a decimal digit.
    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }
}

/// ASCII bytes the parser names.
enum ASCII {
    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09
    static let colon: UInt8 = 0x3A
    static let comma: UInt8 = 0x2C
    static let semicolon: UInt8 = 0x3B
    static let equals: UInt8 = 0x3D
    static let quote: UInt8 = 0x22
    static let backslash: UInt8 = 0x5C
    static let percent: UInt8 = 0x25
    static let slash: UInt8 = 0x2F
    static let question: UInt8 = 0x3F
    static let asterisk: UInt8 = 0x2A
    static let at: UInt8 = 0x40
    static let openBracket: UInt8 = 0x5B
    static let closeBracket: UInt8 = 0x5D
    static let period: UInt8 = 0x2E
}

/// Small grammar routines over a slice of bytes, shared by the parser and the header-field types.
extension UnsafeBufferPointer<UInt8> {
    /// The range without leading and trailing OWS.
    @inline(__always)
    func trimmingWhitespace(_ range: Range<Int>) -> Range<Int> {
        var lower = range.lowerBound
        var upper = range.upperBound
        while lower < upper, HTTPByteClass.isWhitespace(self[lower]) { lower += 1 }
        while upper > lower, HTTPByteClass.isWhitespace(self[upper - 1]) { upper -= 1 }
        return lower..<upper
    }

    /// Calls `body` with each member of the comma-separated list in `range`, trimmed of OWS; empty members
    /// are skipped ([RFC 9110 §5.6.1](https://www.rfc-editor.org/rfc/rfc9110#section-5.6.1)).
    @inline(__always)
    func forEachListMember(in range: Range<Int>, _ body: (Range<Int>) -> Void) {
        var index = range.lowerBound
        while index < range.upperBound {
            var memberEnd = index
            while memberEnd < range.upperBound, self[memberEnd] != ASCII.comma { memberEnd += 1 }
            let member = trimmingWhitespace(index..<memberEnd)
            index = memberEnd + 1
            if !member.isEmpty { body(member) }
        }
    }

    /// The content of the quoted string whose opening quote is at `index`, its quoted pairs undone, with
    /// `index` moved past the closing quote; `nil` when a byte between the quotes is neither `"`, `\` nor
    /// `text`, an escaped byte is not `escapable`, or the string does not end. RFC 9110 §5.6.4's
    /// `quoted-string` and RFC 8941 §4.2.5's sf-string differ only in those two byte classes.
    @inline(__always)
    func quotedString(at index: inout Int, text: (UInt8) -> Bool, escapable: (UInt8) -> Bool) -> String? {
        index += 1
        var content: [UInt8] = []
        while index < count {
            let byte = self[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: content, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index < count, escapable(self[index]) else { return nil }
                content.append(self[index])
                index += 1
            case let other where text(other):
                content.append(other)
            default:
                return nil
            }
        }
        return nil
    }

    /// Whether the bytes in `range` equal `lowercased`, folding ASCII upper case in the buffer only.
    @inline(__always)
    func equalsLowercased(_ range: Range<Int>, _ lowercased: StaticString) -> Bool {
        guard range.count == lowercased.utf8CodeUnitCount else { return false }
        let expected = lowercased.utf8Start
        var offset = 0
        for index in range {
            if self[index].asciiLowercased != expected[offset] { return false }
            offset += 1
        }
        return true
    }

    /// Whether every byte of a non-empty `range` is a `tchar`.
    func isToken(_ range: Range<Int>) -> Bool {
        guard !range.isEmpty else { return false }
        for index in range where !HTTPByteClass.isToken(self[index]) { return false }
        return true
    }

    /// The index just past a quoted-string starting at `start` (RFC 9110 §5.6.4), or `nil` when it is
    /// not one or runs past `end`.
    func endOfQuotedString(from start: Int, end: Int) -> Int? {
        guard start < end, self[start] == ASCII.quote else { return nil }
        var index = start + 1
        while index < end {
            let byte = self[index]
            if byte == ASCII.quote { return index + 1 }
            if byte == ASCII.backslash {
                // quoted-pair = "\" ( HTAB / SP / VCHAR / obs-text )
                guard index + 1 < end, HTTPByteClass.isFieldValue(self[index + 1]) else { return nil }
                index += 2
                continue
            }
            // qdtext excludes DQUOTE and backslash (handled above) and controls.
            guard HTTPByteClass.isFieldValue(byte) else { return nil }
            index += 1
        }
        return nil
    }

    /// Whether `range` holds `*( OWS ";" OWS token [ "=" ( token / quoted-string ) ] )`: the parameters
    /// of a transfer coding or an expectation (RFC 9110 §5.6.6), with the value optional when
    /// `valueRequired` is false (chunk extensions, RFC 9112 §7.1.1, which also allow BWS around `=`).
    func isParameterList(_ range: Range<Int>, valueRequired: Bool, spaceAroundEquals: Bool) -> Bool {
        var index = range.lowerBound
        let end = range.upperBound
        func skipWhitespace() { while index < end, HTTPByteClass.isWhitespace(self[index]) { index += 1 } }
        while true {
            skipWhitespace()
            if index == end { return true }
            guard self[index] == ASCII.semicolon else { return false }
            index += 1
            skipWhitespace()
            let nameStart = index
            while index < end, HTTPByteClass.isToken(self[index]) { index += 1 }
            guard index > nameStart else { return false }
            let afterName = index
            if spaceAroundEquals { skipWhitespace() }
            guard index < end, self[index] == ASCII.equals else {
                if valueRequired { return false }
                index = afterName
                continue
            }
            index += 1
            if spaceAroundEquals { skipWhitespace() }
            if index < end, self[index] == ASCII.quote {
                guard let after = endOfQuotedString(from: index, end: end) else { return false }
                index = after
            } else {
                let valueStart = index
                while index < end, HTTPByteClass.isToken(self[index]) { index += 1 }
                guard index > valueStart else { return false }
            }
        }
    }
}
