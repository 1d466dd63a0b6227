/// An IPv6 address as 128 bits, split in two 64-bit halves (first group in the highest bits of `high`).
///
/// Parsing follows the text forms of RFC 4291 §2.2 (hex groups, one `::`, a dotted IPv4 tail);
/// zone identifiers (`%eth0`) are refused. `description` is the canonical form of RFC 5952 §4.
public struct IPv6Address: Hashable, Sendable, CustomStringConvertible {
    /// Bits 0–63 (groups one to four).
    public let high: UInt64
    /// Bits 64–127 (groups five to eight).
    public let low: UInt64

    /// Creates an address from its two halves.
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Creates an address from its eight 16-bit groups.
    public init(groups: [UInt16]) {
        precondition(groups.count == 8, "an IPv6 address has eight groups")
        high = groups[0..<4].reduce(UInt64(0)) { $0 << 16 | UInt64($1) }
        low = groups[4..<8].reduce(UInt64(0)) { $0 << 16 | UInt64($1) }
    }

    /// Creates an address from 16 bytes in network order.
    public init(bytes: [UInt8]) {
        precondition(bytes.count == 16, "an IPv6 address has sixteen bytes")
        high = bytes[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        low = bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    /// Parses RFC 4291 text (without brackets), or returns `nil`.
    /// - Parameter text: for example `2001:db8::1` or `::ffff:192.0.2.1`.
    public init?(_ text: some StringProtocol) {
        guard let groups = Self.parseGroups(String(text)) else { return nil }
        self.init(groups: groups)
    }

    /// The eight 16-bit groups, first to last.
    public var groups: [UInt16] {
        (0..<4).map { UInt16(truncatingIfNeeded: high >> (48 - 16 * UInt64($0))) }
            + (0..<4).map { UInt16(truncatingIfNeeded: low >> (48 - 16 * UInt64($0))) }
    }

    /// The IPv4 address in the last 32 bits (for mapped, compatible and NAT64 forms).
    public var lowIPv4: IPv4Address { IPv4Address(UInt32(truncatingIfNeeded: low)) }

    /// RFC 5952 canonical text: lower-case hex, no leading zeros, the longest run of two or more zero
    /// groups (the first on a tie) as `::`, and IPv4-mapped addresses with a dotted tail.
    public var description: String {
        if high == 0 && low >> 32 == 0xffff { return "::ffff:\(lowIPv4)" }
        let groups = self.groups
        var bestStart = -1, bestLength = 0, runStart = -1
        for index in 0...8 {
            if index < 8 && groups[index] == 0 {
                if runStart < 0 { runStart = index }
            } else if runStart >= 0 {
                if index - runStart > bestLength { bestStart = runStart; bestLength = index - runStart }
                runStart = -1
            }
        }
        let hex = groups.map { String($0, radix: 16) }
        guard bestLength >= 2 else { return hex.joined(separator: ":") }
        let head = hex[0..<bestStart].joined(separator: ":")
        let tail = hex[(bestStart + bestLength)...].joined(separator: ":")
        return head + "::" + tail
    }

    private static func parseGroups(_ text: String) -> [UInt16]? {
        guard !text.isEmpty, text.utf8.count <= 45 else { return nil }
        let halves = text.split(separator: "::", omittingEmptySubsequences: false)
        guard halves.count <= 2 else { return nil }
        guard let head = parseRun(halves[0], allowIPv4Tail: halves.count == 1) else { return nil }
        if halves.count == 1 { return head.count == 8 ? head : nil }
        guard let tail = parseRun(halves[1], allowIPv4Tail: true) else { return nil }
        // `::` stands for at least one zero group (RFC 4291 §2.2 item 2).
        guard head.count + tail.count <= 7 else { return nil }
        return head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
    }

    private static func parseRun(_ run: Substring, allowIPv4Tail: Bool) -> [UInt16]? {
        if run.isEmpty { return [] }
        let parts = run.split(separator: ":", omittingEmptySubsequences: false)
        var groups: [UInt16] = []
        for (index, part) in parts.enumerated() {
            if index == parts.count - 1 && allowIPv4Tail && part.contains(".") {
                guard let v4 = IPv4Address(part) else { return nil }
                groups.append(UInt16(v4.value >> 16))
                groups.append(UInt16(truncatingIfNeeded: v4.value))
                continue
            }
            guard (1...4).contains(part.utf8.count), part.utf8.allSatisfy(\.isASCIIHexDigit),
                let group = UInt16(part, radix: 16)
            else { return nil }
            groups.append(group)
        }
        return groups
    }
}

extension UInt8 {
    fileprivate var isASCIIHexDigit: Bool {
        (self >= 0x30 && self <= 0x39) || (self >= 0x41 && self <= 0x46) || (self >= 0x61 && self <= 0x66)
    }
}
