internal import HTTPCore

/// A borrowed view of a URL's UTF-8 bytes: slicing it costs no reference counting.
typealias URLBytes = Slice<UnsafeBufferPointer<UInt8>>

/// The authority, path and percent-encoding rules of ``URLCanonicalizer``
/// ([RFC 3986 §3.2](https://www.rfc-editor.org/rfc/rfc3986#section-3.2), §5.2.4, §6.2.2).
extension URLCanonicalizer {
    /// Splits and checks `host[:port]`; user info is refused.
    static func parseAuthority(_ authority: URLBytes, scheme: String) -> Result<
        (host: String, port: Int?), URLRejection
    > {
        if authority.contains(UInt8(ascii: "@")) { return .failure(.userInfo) }
        let hostEnd: Int
        let host: String
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else {
                return .failure(.invalidHost(String(decoding: authority, as: UTF8.self)))
            }
            let literal = authority[(authority.startIndex + 1)..<close]
            guard isIPv6Literal(literal) else {
                return .failure(.invalidHost(String(decoding: authority[...close], as: UTF8.self)))
            }
            host = "[" + String(asciiLowercasing: literal) + "]"
            hostEnd = close + 1
            guard hostEnd == authority.endIndex || authority[hostEnd] == UInt8(ascii: ":") else {
                return .failure(.invalidHost(String(decoding: authority, as: UTF8.self)))
            }
        } else {
            hostEnd = authority.firstIndex(of: UInt8(ascii: ":")) ?? authority.endIndex
            let name = authority[authority.startIndex..<hostEnd]
            guard !name.isEmpty else { return .failure(.emptyHost) }
            if name.contains(where: { $0 >= 0x80 }) { return .failure(.nonASCIIHost) }
            guard isRegisteredName(name) else { return .failure(.invalidHost(String(decoding: name, as: UTF8.self))) }
            // A host ending in a number is an IPv4 address in some spelling (WHATWG URL §3.5): one key
            // for all its spellings, and a malformed one refused here rather than by a resolver.
            let nameBytes = UnsafeBufferPointer(rebasing: name)
            switch IPv4HostSpelling(hostBytes: nameBytes) {
            case .name: host = String(asciiLowercasing: name)
            case .address(let address):
                host =
                    IPv4HostSpelling.dottedDecimal(nameBytes) != nil
                    ? String(asciiLowercasing: name) : IPv4HostSpelling.dotted(address)
            case .invalid: return .failure(.invalidHost(String(decoding: name, as: UTF8.self)))
            }
        }
        guard hostEnd < authority.endIndex else { return .success((host, nil)) }
        let portText = authority[(hostEnd + 1)...]
        // RFC 3986 §6.2.3: an empty port is the default port.
        guard !portText.isEmpty else { return .success((host, nil)) }
        let portString = String(decoding: portText, as: UTF8.self)
        guard portText.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return .failure(.badPort(portString)) }
        var port = 0
        for digit in portText {
            port = port * 10 + Int(digit - 0x30)
            guard port <= 65_535 else { return .failure(.badPort(portString)) }
        }
        guard port >= 1 else { return .failure(.badPort(portString)) }
        let defaultPort = scheme == "https" ? 443 : 80
        return .success((host, port == defaultPort ? nil : port))
    }

    /// A DNS name or dotted IPv4: letters, digits, `-`, `_`, dots between non-empty labels of at
    /// most 63 bytes, one trailing dot allowed, 253 bytes at most without it. `%`-escapes are refused.
    /// One pass over the bytes, with no list of labels.
    private static func isRegisteredName(_ name: URLBytes) -> Bool {
        let trimmed = name.last == UInt8(ascii: ".") ? name.dropLast() : name
        guard !trimmed.isEmpty, trimmed.count <= 253 else { return false }
        var labelLength = 0
        for byte in trimmed {
            if byte == UInt8(ascii: ".") {
                guard labelLength > 0 else { return false }
                labelLength = 0
                continue
            }
            let allowed =
                (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            guard allowed else { return false }
            labelLength += 1
            guard labelLength <= 63 else { return false }
        }
        return labelLength > 0
    }

    /// Whether `authority` is exactly `host` followed by `:port` when there is one: the caller wrote the
    /// host lower-cased and in its canonical spelling, and no default, empty or zero-padded port.
    static func spells(_ authority: URLBytes, host: String, port: Int?) -> Bool {
        var portLength = 0
        if var rest = port {
            portLength = 1
            repeat {
                portLength += 1
                rest /= 10
            } while rest > 0
        }
        let hostLength = host.utf8.count
        guard authority.count == hostLength + portLength else { return false }
        let hostPrefix = authority.prefix(hostLength)
        return host.utf8.withContiguousStorageIfAvailable { $0.elementsEqual(hostPrefix) }
            ?? hostPrefix.elementsEqual(host.utf8)
    }

    /// Whether a path or query is in normal form as it stands: no `%` (an escape may need its hex
    /// upper-cased or its byte decoded), nothing non-ASCII and nothing that must be escaped.
    static func isNormal(_ bytes: URLBytes) -> Bool {
        !bytes.contains(where: { $0 == UInt8(ascii: "%") || $0 >= 0x80 || mustBeEscaped($0) })
    }

    /// Whether a path has a `.` or `..` segment, which `removingDotSegments` would remove.
    static func hasDotSegment(_ path: URLBytes) -> Bool {
        var index = path.startIndex
        while let dot = path[index...].firstIndex(of: UInt8(ascii: ".")) {
            let atSegmentStart = dot == path.startIndex || path[dot - 1] == UInt8(ascii: "/")
            if atSegmentStart {
                var end = dot + 1
                if end < path.endIndex && path[end] == UInt8(ascii: ".") { end += 1 }
                if end == path.endIndex || path[end] == UInt8(ascii: "/") { return true }
            }
            index = dot + 1
        }
        return false
    }

    /// The inside of `[…]` is an `IPv6address` of [RFC 3986 §3.2.2](https://www.rfc-editor.org/rfc/rfc3986#section-3.2.2):
    /// eight groups of 1–4 hex digits, or fewer around one `::`, the last two optionally written as a
    /// dotted IPv4 address. Zone identifiers (`%25…`) and IPvFuture (`v1.…`) are refused. The SSRF guard
    /// checks the address actually connected to; this keeps the key from naming a host no client could
    /// reach (the origin client refuses the same literals).
    private static func isIPv6Literal(_ literal: URLBytes) -> Bool {
        guard literal.count >= 2, literal.count <= 45 else { return false }
        let colon = UInt8(ascii: ":")
        var head = literal
        var tail: URLBytes?
        if let gap = literal.indices.dropLast().first(where: { literal[$0] == colon && literal[$0 + 1] == colon }) {
            head = literal[literal.startIndex..<gap]
            tail = literal[(gap + 2)...]
        }
        // Groups of one side; an empty side (before or after `::`) has none.
        func groups(_ side: URLBytes) -> [URLBytes] {
            side.isEmpty ? [] : side.split(separator: colon, omittingEmptySubsequences: false)
        }
        let before = groups(head)
        let after = tail.map(groups) ?? []
        let all = before + after
        // A dotted IPv4 may only end the address: last group, and not just before a trailing `::`.
        let dottedAllowedAt = tail == nil || !after.isEmpty ? all.count - 1 : -1
        var count = 0
        for (index, group) in all.enumerated() {
            if index == dottedAllowedAt && group.contains(UInt8(ascii: ".")) {
                guard isIPv4Dotted(group) else { return false }
                count += 2
            } else {
                guard (1...4).contains(group.count), group.allSatisfy(isHexDigit) else { return false }
                count += 1
            }
        }
        return tail == nil ? count == 8 : count <= 7
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66) || (byte >= 0x41 && byte <= 0x46)
    }

    /// `IPv4address` of RFC 3986 §3.2.2: four decimal octets 0–255 without leading zeros.
    private static func isIPv4Dotted(_ bytes: URLBytes) -> Bool {
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { part in
                guard (1...3).contains(part.count), part.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return false }
                guard part.count == 1 || part.first != 0x30 else { return false }
                return part.reduce(0) { $0 * 10 + Int($1 - 0x30) } <= 255
            }
    }

    /// Normalises percent-encoding (RFC 3986 §6.2.2.1–2): escapes of unreserved characters are
    /// decoded, other escapes get upper-case hex, and bytes that may not appear raw are escaped. An
    /// escaped hex digit right after a stray `%` stays escaped, so the result is its own normal form.
    static func normalizingPercentEncoding(_ bytes: URLBytes) -> [UInt8] {
        // Most paths and queries need no change: one scan, one copy.
        if isNormal(bytes) { return Array(bytes) }
        // Escaping at most triples the length.
        return [UInt8](unsafeUninitializedCapacity: bytes.count * 3) { out, written in
            var index = bytes.startIndex
            func put(_ byte: UInt8) {
                out[written] = byte
                written += 1
            }
            func putEscape(_ byte: UInt8) {
                put(UInt8(ascii: "%"))
                put(hexDigit(byte >> 4))
                put(hexDigit(byte & 0x0F))
            }
            while index < bytes.endIndex {
                let byte = bytes[index]
                if byte == UInt8(ascii: "%"), index + 2 < bytes.endIndex,
                    let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
                {
                    let decoded = high << 4 | low
                    // A stray `%` before (`%`, or `%` and one hex digit) would turn a decoded hex digit
                    // into a new escape, and canonicalizing again would change the URL: keep it escaped.
                    let afterStrayPercent =
                        (written >= 1 && out[written - 1] == UInt8(ascii: "%"))
                        || (written >= 2 && out[written - 2] == UInt8(ascii: "%") && hexValue(out[written - 1]) != nil)
                    if isUnreserved(decoded) && !(afterStrayPercent && hexValue(decoded) != nil) {
                        put(decoded)
                    } else {
                        putEscape(decoded)
                    }
                    index += 3
                    continue
                }
                if byte >= 0x80 || mustBeEscaped(byte) { putEscape(byte) } else { put(byte) }
                index += 1
            }
        }
    }

    /// `remove_dot_segments` of RFC 3986 §5.2.4 for a path that is empty or starts with `/`, on bytes:
    /// each segment is copied to the output or, for `..`, removes the last one copied.
    static func removingDotSegments(_ path: [UInt8]) -> [UInt8] {
        guard path.first == UInt8(ascii: "/") else { return path }
        var output: [UInt8] = []
        output.reserveCapacity(path.count)
        var segmentStart = 1
        while segmentStart <= path.count {
            let segmentEnd = path[segmentStart...].firstIndex(of: UInt8(ascii: "/")) ?? path.count
            let segment = path[segmentStart..<segmentEnd]
            let isLast = segmentEnd == path.count
            if segment.elementsEqual([UInt8(ascii: ".")]) {
                if isLast { output.append(UInt8(ascii: "/")) }
            } else if segment.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")]) {
                // Drop the last output segment with its leading slash.
                if let slash = output.lastIndex(of: UInt8(ascii: "/")) { output.removeSubrange(slash...) }
                if isLast { output.append(UInt8(ascii: "/")) }
            } else {
                output.append(UInt8(ascii: "/"))
                output.append(contentsOf: segment)
            }
            segmentStart = segmentEnd + 1
        }
        return output.isEmpty ? [UInt8(ascii: "/")] : output
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }

    /// `unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"` (RFC 3986 §2.3).
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: "~")
    }

    /// Printable ASCII that RFC 3986 does not allow raw anywhere in a path or query.
    private static func mustBeEscaped(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\\"), UInt8(ascii: "^"),
            UInt8(ascii: "`"), UInt8(ascii: "{"), UInt8(ascii: "|"), UInt8(ascii: "}"):
            return true
        default:
            return false
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
