internal import HTTPCore

/// An absolute http or https URL checked before it reaches libcurl (RFC 3986 §3, RFC 9110 §4.2).
///
/// Refused: other schemes, user info, an empty or malformed host, a port outside 1–65535, whitespace,
/// control characters, and URLs past the length bound. Non-ASCII bytes in the path and query are
/// percent-encoded; the fragment is dropped (it is never sent). A host ending in a number is read as the
/// WHATWG URL Standard reads IPv4 hosts (`2130706433`, `0x7f.1`, `127.0.0.1.`) and handed on in dotted
/// decimal, to be judged on the connected address by the address policy; one that is no IPv4 address
/// (`08.0.0.1`, `1.2.3.4.5`, `4294967296`) is refused.
public struct OriginURL: Hashable, Sendable, CustomStringConvertible {
    /// `http` or `https`, lower case.
    public let scheme: String
    /// The host as written (lower-cased), IPv6 literals without brackets.
    public let host: String
    /// The explicit port, if any.
    public let port: Int?
    /// The normalized URL handed to libcurl.
    public let string: String

    /// The default upper bound on the URL length in bytes.
    public static let defaultMaximumLength = 8192

    /// The port connected to: the explicit one or the scheme's default.
    public var effectivePort: Int { port ?? (scheme == "https" ? 443 : 80) }

    /// Validates and normalizes a URL.
    ///
    /// One pass over the URL's contiguous bytes: every delimiter (`://`, `/`, `?`, `#`, `@`, `[`, `]`, `:`) is
    /// ASCII, and an ASCII byte in UTF-8 is always a whole scalar, so a byte search finds exactly the
    /// delimiters a scalar search would (a `Character` search would not: `#` followed by a combining mark is
    /// one Character). A URL that is already normal (the canonical URLs the fetch path hands over) is kept as
    /// the string it came in: on arrays, lazy views and a rebuilt string this cost 6 900 instructions of
    /// every miss (callgrind, `Benchmarks/callgrind/run.sh`).
    /// - Parameters:
    ///   - text: the URL as the caller gave it.
    ///   - maximumLength: the longest URL accepted, in bytes.
    /// - Throws: `OriginError.invalidURL` with the reason.
    public init(validating text: String, maximumLength: Int = OriginURL.defaultMaximumLength) throws(OriginError) {
        var text = text
        let parts = try text.withUTF8 { Self.parse($0, maximumLength: maximumLength) }.get()
        scheme = parts.scheme
        host = parts.host
        port = parts.port
        string = parts.normalized ?? text
    }

    /// The normalized URL.
    public var description: String { string }

    /// What `parse` read; `normalized` is `nil` when the URL was normal as written.
    private struct Parts {
        var scheme: String
        var host: String
        var port: Int?
        var normalized: String?
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>, maximumLength: Int) -> Result<Parts, OriginError> {
        guard bytes.count <= maximumLength else {
            return .failure(.invalidURL(reason: "longer than \(maximumLength) bytes"))
        }
        var separator: Int?
        for index in bytes.indices {
            let byte = bytes[index]
            if byte <= 0x20 || byte == 0x7F {
                return .failure(.invalidURL(reason: byte == 0x20 ? "contains a space" : "contains a control character"))
            }
            if separator == nil, byte == UInt8(ascii: ":"), index + 2 < bytes.count,
                bytes[index + 1] == UInt8(ascii: "/"), bytes[index + 2] == UInt8(ascii: "/")
            {
                separator = index
            }
        }
        guard let separator else { return .failure(.invalidURL(reason: "not an absolute URL")) }
        let written = UnsafeBufferPointer(rebasing: bytes[..<separator])
        let scheme: String
        if written.elementsEqual("http".utf8, by: { $0.asciiLowercased == $1 }) {
            scheme = "http"
        } else if written.elementsEqual("https".utf8, by: { $0.asciiLowercased == $1 }) {
            scheme = "https"
        } else {
            return .failure(.invalidURL(reason: "scheme must be http or https"))
        }
        var isNormal = written.elementsEqual(scheme.utf8)
        let authorityStart = separator + 3
        var authorityEnd = authorityStart
        while authorityEnd < bytes.count {
            let byte = bytes[authorityEnd]
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            authorityEnd += 1
        }
        let authority = UnsafeBufferPointer(rebasing: bytes[authorityStart..<authorityEnd])
        guard !authority.contains(UInt8(ascii: "@")) else {
            return .failure(.invalidURL(reason: "user info is not allowed"))
        }
        let parsedAuthority: Authority
        switch parseAuthority(authority) {
        case .success(let found): parsedAuthority = found
        case .failure(let error): return .failure(error)
        }
        isNormal = isNormal && parsedAuthority.isNormal
        let tail = UnsafeBufferPointer(rebasing: bytes[authorityEnd...])
        let tailEnd = tail.firstIndex(of: UInt8(ascii: "#")) ?? tail.endIndex
        let sent = UnsafeBufferPointer(rebasing: tail[..<tailEnd])
        // A URL without a path asks for "/" (RFC 9112 §3.2.1); the fragment is never sent.
        let addsSlash = sent.first == nil || sent.first == UInt8(ascii: "?")
        isNormal = isNormal && !addsSlash && tailEnd == tail.endIndex && !sent.contains(where: { $0 >= 0x80 })
        var parts = Parts(scheme: scheme, host: parsedAuthority.host, port: parsedAuthority.port)
        if isNormal { return .success(parts) }
        var normalized: [UInt8] = []
        normalized.reserveCapacity(bytes.count + 8)
        normalized += scheme.utf8
        normalized += "://".utf8
        if parsedAuthority.host.utf8.contains(UInt8(ascii: ":")) {
            normalized.append(UInt8(ascii: "["))
            normalized += parsedAuthority.host.utf8
            normalized.append(UInt8(ascii: "]"))
        } else {
            normalized += parsedAuthority.host.utf8
        }
        if let port = parsedAuthority.port { normalized += ":\(port)".utf8 }
        if addsSlash { normalized.append(UInt8(ascii: "/")) }
        appendPercentEncodingNonASCII(sent, to: &normalized)
        // Escaping non-ASCII bytes triples them: the URL handed on must itself be within the bound.
        guard normalized.count <= maximumLength else {
            return .failure(.invalidURL(reason: "longer than \(maximumLength) bytes once percent-encoded"))
        }
        parts.normalized = String(decoding: normalized, as: UTF8.self)
        return .success(parts)
    }

    /// The host and port of an authority, and whether the authority is written as `parse` would write it.
    private struct Authority {
        var host: String
        var port: Int?
        var isNormal: Bool
    }

    private static func parseAuthority(_ authority: UnsafeBufferPointer<UInt8>) -> Result<Authority, OriginError> {
        var hostPart: UnsafeBufferPointer<UInt8>
        var portPart: UnsafeBufferPointer<UInt8>?
        var respelled: String?
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else {
                return .failure(.invalidURL(reason: "unclosed IPv6 literal"))
            }
            hostPart = UnsafeBufferPointer(rebasing: authority[1..<close])
            let after = UnsafeBufferPointer(rebasing: authority[(close + 1)...])
            if !after.isEmpty {
                guard after.first == UInt8(ascii: ":") else {
                    return .failure(.invalidURL(reason: "junk after IPv6 literal"))
                }
                portPart = UnsafeBufferPointer(rebasing: after[1...])
            }
            guard IPv6Address(String(decoding: hostPart, as: UTF8.self)) != nil else {
                return .failure(.invalidURL(reason: "malformed IPv6 literal"))
            }
        } else {
            if let colon = authority.lastIndex(of: UInt8(ascii: ":")) {
                hostPart = UnsafeBufferPointer(rebasing: authority[..<colon])
                portPart = UnsafeBufferPointer(rebasing: authority[(colon + 1)...])
            } else {
                hostPart = authority
            }
            guard !hostPart.isEmpty else { return .failure(.invalidURL(reason: "empty host")) }
            let allowed = hostPart.allSatisfy { byte in
                (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
            }
            guard allowed else {
                return .failure(.invalidURL(reason: "host has characters outside letters, digits, '-', '.', '_'"))
            }
            // A DNS name is at most 253 bytes written out, not counting the one trailing dot it may end in
            // (the canonicalizer's rule: Fuzz/run.sh URLCanonicalization found a 253-byte name with its dot
            // that got a key here and was refused when fetched).
            let nameLength = hostPart.last == UInt8(ascii: ".") ? hostPart.count - 1 : hostPart.count
            guard nameLength <= 253 else { return .failure(.invalidURL(reason: "host longer than 253 bytes")) }
            // WHATWG URL §3.5: a host ending in a number is an IPv4 address, handed to libcurl in dotted
            // decimal (`127.0.0.1.` or `0x7f.1` would otherwise reach a resolver), or no host at all.
            switch IPv4HostSpelling(hostBytes: hostPart) {
            case .name: break
            case .address(let address):
                if IPv4HostSpelling.dottedDecimal(hostPart) == nil { respelled = IPv4HostSpelling.dotted(address) }
            case .invalid: return .failure(.invalidURL(reason: "host ends in a number but is not an IPv4 address"))
            }
        }
        guard !hostPart.isEmpty else { return .failure(.invalidURL(reason: "empty host")) }
        var port: Int?
        var portIsNormal = true
        if let portPart {
            if portPart.isEmpty {
                portIsNormal = false  // "host:" asks for the default port, written without the colon
            } else {
                guard portPart.count <= 5, portPart.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                    return .failure(.invalidURL(reason: "port must be 1–65535"))
                }
                let value = portPart.reduce(0) { $0 * 10 + Int($1 - 0x30) }
                guard (1...65535).contains(value) else { return .failure(.invalidURL(reason: "port must be 1–65535")) }
                port = value
                portIsNormal = portPart.first != UInt8(ascii: "0")
            }
        }
        // Letters are ASCII here (or hex digits of an IPv6 literal): folding ASCII case is lower-casing.
        let hasUpperCase = hostPart.contains { $0 >= 0x41 && $0 <= 0x5A }
        let host =
            respelled
            ?? (hasUpperCase
                ? String(unsafeUninitializedCapacity: hostPart.count) { buffer in
                    for (offset, byte) in hostPart.enumerated() { buffer[offset] = byte.asciiLowercased }
                    return hostPart.count
                }
                : String(decoding: hostPart, as: UTF8.self))
        return .success(
            Authority(host: host, port: port, isNormal: respelled == nil && !hasUpperCase && portIsNormal))
    }

    /// Appends `text` with every byte outside ASCII written as `%XX`.
    private static func appendPercentEncodingNonASCII(_ text: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        // An upper-case hex digit, without a table to allocate on every miss.
        func hex(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 0x30 + nibble : 0x37 + nibble }
        for byte in text {
            if byte >= 0x80 {
                out.append(UInt8(ascii: "%"))
                out.append(hex(byte >> 4))
                out.append(hex(byte & 0x0F))
            } else {
                out.append(byte)
            }
        }
    }
}
