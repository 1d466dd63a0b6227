/// How a URL's host reads as an IPv4 address, by the IPv4 parser of the
/// [WHATWG URL Standard §3.5](https://url.spec.whatwg.org/#concept-ipv4-parser), the rules browsers and
/// libcurl's resolver follow in spirit: a host whose last label is a number is an IPv4 address in one of
/// the numeric spellings (`127.1`, `0x7f.1`, `0177.0.0.1`, `2130706433`, `127.0.0.1.`) or invalid
/// (`08.0.0.1`, `1.2.3.4.5`, `4294967296`); any other host is a name.
///
/// Larder reads hosts this way before anything is looked up, so that a numeric spelling is judged as the
/// address it is, and a malformed one is refused as a URL (400) instead of failing in a resolver (502).
public enum IPv4HostSpelling: Sendable, Equatable {
    /// The host is a name (its last label is not a number).
    case name
    /// The host is this IPv4 address.
    case address(UInt32)
    /// The host ends in a number but is no IPv4 address.
    case invalid

    /// Classifies a host (without brackets or port).
    /// - Parameter host: The host as written; ASCII case does not matter.
    public init(host: Substring) {
        var text = host
        self = text.withUTF8 { Self(hostBytes: $0) }
    }

    /// Classifies a host given as its bytes (without brackets or port). Concrete bytes, not a generic
    /// collection: this runs on every miss, and unspecialized generic code across modules cost tens of
    /// thousands of instructions a call (callgrind).
    /// - Parameter hostBytes: The host's UTF-8 bytes.
    public init(hostBytes: UnsafeBufferPointer<UInt8>) {
        // Every IPv4 number starts with a digit: a host whose last label does not is a name, found
        // without allocating (the common case, on every request).
        var end = hostBytes.count
        if end > 0, hostBytes[end - 1] == UInt8(ascii: ".") { end -= 1 }
        var lastLabelStart = end
        while lastLabelStart > 0 && hostBytes[lastLabelStart - 1] != UInt8(ascii: ".") { lastLabelStart -= 1 }
        guard lastLabelStart < end, (0x30...0x39).contains(hostBytes[lastLabelStart]) else {
            self = .name
            return
        }
        // The usual numeric host is already dotted decimal: read it without allocating.
        if let address = Self.dottedDecimal(hostBytes) {
            self = .address(address)
            return
        }
        var labels = Array(hostBytes).split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        // "ends in a number" (§3.5): one trailing empty label (a trailing dot) is dropped first.
        if labels.count > 1, labels.last?.isEmpty == true { labels.removeLast() }
        guard let last = labels.last, Self.endsInANumber(last) else {
            self = .name
            return
        }
        guard labels.count <= 4 else {
            self = .invalid
            return
        }
        var numbers: [UInt64] = []
        for label in labels {
            guard let number = Self.number(label) else {
                self = .invalid
                return
            }
            numbers.append(number)
        }
        // Every part but the last is one byte; the last fills the bytes that remain.
        guard numbers.dropLast().allSatisfy({ $0 <= 255 }),
            numbers[numbers.count - 1] < (UInt64(1) << (8 * UInt64(5 - numbers.count)))
        else {
            self = .invalid
            return
        }
        var address = numbers[numbers.count - 1]
        for (index, number) in numbers.dropLast().enumerated() {
            address += number << (8 * UInt64(3 - index))
        }
        self = .address(UInt32(address))
    }

    /// The canonical dotted-decimal address of a host given as text (see the byte form).
    /// - Parameter host: The host as written.
    /// - Returns: The address, or `nil`.
    public static func dottedDecimal(_ host: Substring) -> UInt32? {
        var text = host
        return text.withUTF8 { dottedDecimal($0) }
    }

    /// The address a host written in canonical dotted decimal names (`127.0.0.1`: four decimal octets
    /// 0–255 without leading zeros, no trailing dot), `nil` for any other spelling. A host for which this
    /// answers is already in the form ``dotted(_:)`` writes.
    /// - Parameter hostBytes: The host's bytes.
    /// - Returns: The address, or `nil`.
    public static func dottedDecimal(_ hostBytes: UnsafeBufferPointer<UInt8>) -> UInt32? {
        var address: UInt32 = 0
        var octet: UInt32 = 0
        var digits = 0
        var dots = 0
        var leadingZero = false
        for byte in hostBytes {
            if byte == UInt8(ascii: ".") {
                guard digits > 0, dots < 3 else { return nil }
                address = address << 8 | octet
                (octet, digits, dots, leadingZero) = (0, 0, dots + 1, false)
                continue
            }
            guard byte >= 0x30 && byte <= 0x39, !leadingZero, digits < 3 else { return nil }
            if digits == 0 && byte == 0x30 { leadingZero = true }
            octet = octet * 10 + UInt32(byte - 0x30)
            digits += 1
            guard octet <= 255 else { return nil }
        }
        guard dots == 3, digits > 0 else { return nil }
        return address << 8 | octet
    }

    /// The address in dotted decimal (`127.0.0.1`).
    /// - Parameter address: The address.
    /// - Returns: Four decimal octets.
    public static func dotted(_ address: UInt32) -> String {
        "\(address >> 24).\((address >> 16) & 0xFF).\((address >> 8) & 0xFF).\(address & 0xFF)"
    }

    /// §3.5 "ends in a number": the last label is all decimal digits, or parses as an IPv4 number.
    private static func endsInANumber(_ label: ArraySlice<UInt8>) -> Bool {
        if !label.isEmpty && label.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { return true }
        return number(label) != nil
    }

    /// §3.5 "IPv4 number parser": `0x`/`0X` makes it hexadecimal, a leading `0` octal, else decimal; an
    /// empty part, a digit outside the radix, or a value past 2^32 is `nil`.
    private static func number(_ label: ArraySlice<UInt8>) -> UInt64? {
        guard !label.isEmpty else { return nil }
        var digits = label[...]
        var radix: UInt64 = 10
        if digits.count >= 2, digits.first == UInt8(ascii: "0"),
            digits.dropFirst().first == UInt8(ascii: "x") || digits.dropFirst().first == UInt8(ascii: "X")
        {
            digits = digits.dropFirst(2)
            radix = 16
        } else if digits.count >= 2, digits.first == UInt8(ascii: "0") {
            digits = digits.dropFirst()
            radix = 8
        }
        var value: UInt64 = 0
        for byte in digits {
            let digit: UInt64
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt64(byte - 0x30)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt64(byte - 0x61 + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt64(byte - 0x41 + 10)
            default: return nil
            }
            guard digit < radix else { return nil }
            value = value * radix + digit
            // Past 2^32 no part is valid; stop before the arithmetic overflows.
            guard value <= UInt64(UInt32.max) + 1 else { return nil }
        }
        return value
    }
}
