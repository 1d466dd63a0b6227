/// The parts of the URI grammar (RFC 3986) a request target and a `Host` value are checked against.
enum URIGrammar {
    /// Checks `absolute-path [ "?" query ]` (RFC 9112 §3.2.1), with well-formed `%XX` escapes.
    /// - Returns: The index of the `?` (or the end when there is no query); `nil` when invalid.
    static func pathEnd(_ buffer: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int? {
        guard !range.isEmpty, buffer[range.lowerBound] == ASCII.slash else { return nil }
        var index = range.lowerBound
        while index < range.upperBound {
            let byte = buffer[index]
            if byte == ASCII.question { return isQuery(buffer, (index + 1)..<range.upperBound) ? index : nil }
            if byte == ASCII.percent {
                guard isEscape(buffer, at: index, end: range.upperBound) else { return nil }
                index += 3
                continue
            }
            guard HTTPByteClass.contains(byte, HTTPByteClass.path) else { return nil }
            index += 1
        }
        return index
    }

    /// `query = *( pchar / "/" / "?" )` (RFC 3986 §3.4).
    static func isQuery(_ buffer: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        var index = range.lowerBound
        while index < range.upperBound {
            let byte = buffer[index]
            if byte == ASCII.percent {
                guard isEscape(buffer, at: index, end: range.upperBound) else { return false }
                index += 3
                continue
            }
            guard HTTPByteClass.contains(byte, HTTPByteClass.query) else { return false }
            index += 1
        }
        return true
    }

    /// `uri-host [ ":" port ]` (RFC 9110 §7.2) with a non-empty host: a reg-name (which covers
    /// IPv4address), or an IP-literal in brackets (IPv6address or IPvFuture).
    static func isHostAndPort(_ buffer: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        guard !range.isEmpty else { return false }
        var index = range.lowerBound
        if buffer[index] == ASCII.openBracket {
            var close = index + 1
            while close < range.upperBound, buffer[close] != ASCII.closeBracket { close += 1 }
            guard close < range.upperBound, isIPLiteral(buffer, (index + 1)..<close) else { return false }
            index = close + 1
        } else {
            while index < range.upperBound, buffer[index] != ASCII.colon {
                let byte = buffer[index]
                if byte == ASCII.percent {
                    guard isEscape(buffer, at: index, end: range.upperBound) else { return false }
                    index += 3
                    continue
                }
                guard HTTPByteClass.contains(byte, HTTPByteClass.regName) else { return false }
                index += 1
            }
            guard index > range.lowerBound else { return false }
        }
        if index == range.upperBound { return true }
        // port = *DIGIT
        guard buffer[index] == ASCII.colon else { return false }
        index += 1
        while index < range.upperBound {
            guard HTTPByteClass.isDigit(buffer[index]) else { return false }
            index += 1
        }
        return true
    }

    /// `pct-encoded = "%" HEXDIG HEXDIG`, starting at `index`.
    private static func isEscape(_ buffer: UnsafeBufferPointer<UInt8>, at index: Int, end: Int) -> Bool {
        index + 2 < end && HTTPByteClass.hexValue(buffer[index + 1]) != nil
            && HTTPByteClass.hexValue(buffer[index + 2]) != nil
    }

    /// The inside of `IP-literal = "[" ( IPv6address / IPvFuture ) "]"` (RFC 3986 §3.2.2).
    private static func isIPLiteral(_ buffer: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        guard !range.isEmpty else { return false }
        if buffer[range.lowerBound] | 0x20 == 0x76 {
            // IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
            var index = range.lowerBound + 1
            let digitsStart = index
            while index < range.upperBound, HTTPByteClass.hexValue(buffer[index]) != nil { index += 1 }
            guard index > digitsStart, index < range.upperBound, buffer[index] == ASCII.period else { return false }
            index += 1
            guard index < range.upperBound else { return false }
            while index < range.upperBound {
                let byte = buffer[index]
                guard byte == ASCII.colon || HTTPByteClass.contains(byte, HTTPByteClass.regName) else { return false }
                index += 1
            }
            return true
        }
        return isIPv6(buffer, range)
    }

    /// `IPv6address` (RFC 3986 §3.2.2): eight 16-bit groups, one `::` standing for one or more zero
    /// groups, and an optional dotted IPv4 address as the last 32 bits.
    static func isIPv6(_ buffer: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        var index = range.lowerBound
        let end = range.upperBound
        var groups = 0
        var compressed = false
        if end - index >= 2, buffer[index] == ASCII.colon, buffer[index + 1] == ASCII.colon {
            compressed = true
            index += 2
            if index == end { return true }
        }
        while index < end {
            let groupStart = index
            while index < end, index - groupStart < 5, HTTPByteClass.hexValue(buffer[index]) != nil { index += 1 }
            if index < end, buffer[index] == ASCII.period {
                guard isIPv4(buffer, groupStart..<end) else { return false }
                groups += 2
                break
            }
            guard index - groupStart >= 1, index - groupStart <= 4 else { return false }
            groups += 1
            if index == end { break }
            guard buffer[index] == ASCII.colon else { return false }
            index += 1
            if index < end, buffer[index] == ASCII.colon {
                guard !compressed else { return false }
                compressed = true
                index += 1
                if index == end { break }
            } else if index == end {
                return false
            }
        }
        return compressed ? groups <= 7 : groups == 8
    }

    /// `IPv4address = dec-octet "." dec-octet "." dec-octet "." dec-octet`, octets without leading
    /// zeros (RFC 3986 §3.2.2).
    static func isIPv4(_ buffer: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        var index = range.lowerBound
        for octet in 0..<4 {
            if octet > 0 {
                guard index < range.upperBound, buffer[index] == ASCII.period else { return false }
                index += 1
            }
            let start = index
            var value = 0
            while index < range.upperBound, index - start < 4, HTTPByteClass.isDigit(buffer[index]) {
                value = value * 10 + Int(buffer[index] &- 0x30)
                index += 1
            }
            let length = index - start
            guard length >= 1, length <= 3, value <= 255, length == 1 || buffer[start] != 0x30 else { return false }
        }
        return index == range.upperBound
    }
}
