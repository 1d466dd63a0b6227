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
    /// One pass over the URL's bytes: every delimiter (`://`, `/`, `?`, `#`, `@`, `[`, `]`, `:`) is ASCII,
    /// and an ASCII byte in UTF-8 is always a whole scalar, so a byte search finds exactly the delimiters a
    /// scalar search would (a `Character` search would not: `#` followed by a combining mark is one
    /// Character). On Strings and Characters this cost 20 000 instructions of every miss (callgrind).
    /// - Parameters:
    ///   - text: the URL as the caller gave it.
    ///   - maximumLength: the longest URL accepted, in bytes.
    /// - Throws: `OriginError.invalidURL` with the reason.
    public init(validating text: String, maximumLength: Int = OriginURL.defaultMaximumLength) throws(OriginError) {
        let bytes = Array(text.utf8)
        guard bytes.count <= maximumLength else { throw .invalidURL(reason: "longer than \(maximumLength) bytes") }
        if let bad = bytes.first(where: { $0 <= 0x20 || $0 == 0x7F }) {
            throw .invalidURL(reason: bad == 0x20 ? "contains a space" : "contains a control character")
        }
        guard
            let separator = bytes.indices.dropLast(2).first(where: {
                bytes[$0] == UInt8(ascii: ":") && bytes[$0 + 1] == UInt8(ascii: "/")
                    && bytes[$0 + 2] == UInt8(ascii: "/")
            })
        else {
            throw .invalidURL(reason: "not an absolute URL")
        }
        let written = bytes[..<separator].lazy.map(\.asciiLowercased)
        let scheme: String
        if written.elementsEqual("http".utf8) {
            scheme = "http"
        } else if written.elementsEqual("https".utf8) {
            scheme = "https"
        } else {
            throw .invalidURL(reason: "scheme must be http or https")
        }
        let authorityStart = separator + 3
        let authorityEnd =
            bytes[authorityStart...].firstIndex(where: {
                $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
            }) ?? bytes.endIndex
        let authority = bytes[authorityStart..<authorityEnd]
        guard !authority.contains(UInt8(ascii: "@")) else { throw .invalidURL(reason: "user info is not allowed") }
        let (host, port) = try Self.parseAuthority(authority)
        let tailEnd = bytes[authorityEnd...].firstIndex(of: UInt8(ascii: "#")) ?? bytes.endIndex
        let tail = bytes[authorityEnd..<tailEnd]
        self.scheme = scheme
        self.host = host
        self.port = port
        var normalized: [UInt8] = []
        normalized.reserveCapacity(bytes.count + 8)
        normalized += scheme.utf8
        normalized += "://".utf8
        if host.utf8.contains(UInt8(ascii: ":")) {
            normalized.append(UInt8(ascii: "["))
            normalized += host.utf8
            normalized.append(UInt8(ascii: "]"))
        } else {
            normalized += host.utf8
        }
        if let port { normalized += ":\(port)".utf8 }
        // A URL without a path asks for "/" (RFC 9112 §3.2.1).
        if tail.first == nil || tail.first == UInt8(ascii: "?") { normalized.append(UInt8(ascii: "/")) }
        Self.appendPercentEncodingNonASCII(tail, to: &normalized)
        // Escaping non-ASCII bytes triples them: the URL handed on must itself be within the bound.
        guard normalized.count <= maximumLength else {
            throw .invalidURL(reason: "longer than \(maximumLength) bytes once percent-encoded")
        }
        string = String(decoding: normalized, as: UTF8.self)
    }

    /// The normalized URL.
    public var description: String { string }

    private static func parseAuthority(_ authority: ArraySlice<UInt8>) throws(OriginError) -> (String, Int?) {
        var hostPart: ArraySlice<UInt8>
        var portPart: ArraySlice<UInt8>?
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else {
                throw .invalidURL(reason: "unclosed IPv6 literal")
            }
            hostPart = authority[(authority.startIndex + 1)..<close]
            let after = authority[(close + 1)...]
            if !after.isEmpty {
                guard after.first == UInt8(ascii: ":") else { throw .invalidURL(reason: "junk after IPv6 literal") }
                portPart = after.dropFirst()
            }
            guard IPv6Address(String(decoding: hostPart, as: UTF8.self)) != nil else {
                throw .invalidURL(reason: "malformed IPv6 literal")
            }
        } else {
            if let colon = authority.lastIndex(of: UInt8(ascii: ":")) {
                hostPart = authority[..<colon]
                portPart = authority[(colon + 1)...]
            } else {
                hostPart = authority
            }
            guard !hostPart.isEmpty else { throw .invalidURL(reason: "empty host") }
            let allowed = hostPart.allSatisfy { byte in
                (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
            }
            guard allowed else {
                throw .invalidURL(reason: "host has characters outside letters, digits, '-', '.', '_'")
            }
            // A DNS name is at most 253 bytes written out, not counting the one trailing dot it may end in
            // (the canonicalizer's rule: Fuzz/run.sh URLCanonicalization found a 253-byte name with its dot
            // that got a key here and was refused when fetched).
            let nameLength = hostPart.last == UInt8(ascii: ".") ? hostPart.count - 1 : hostPart.count
            guard nameLength <= 253 else { throw .invalidURL(reason: "host longer than 253 bytes") }
            // WHATWG URL §3.5: a host ending in a number is an IPv4 address, handed to libcurl in dotted
            // decimal (`127.0.0.1.` or `0x7f.1` would otherwise reach a resolver), or no host at all.
            let spelling = hostPart.withUnsafeBufferPointer { IPv4HostSpelling(hostBytes: $0) }
            switch spelling {
            case .name: break
            case .address(let address):
                if hostPart.withUnsafeBufferPointer({ IPv4HostSpelling.dottedDecimal($0) }) == nil {
                    hostPart = ArraySlice(IPv4HostSpelling.dotted(address).utf8)
                }
            case .invalid: throw .invalidURL(reason: "host ends in a number but is not an IPv4 address")
            }
        }
        guard !hostPart.isEmpty else { throw .invalidURL(reason: "empty host") }
        var port: Int?
        if let portPart, !portPart.isEmpty {
            guard portPart.count <= 5, portPart.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                throw .invalidURL(reason: "port must be 1–65535")
            }
            let value = portPart.reduce(0) { $0 * 10 + Int($1 - 0x30) }
            guard (1...65535).contains(value) else { throw .invalidURL(reason: "port must be 1–65535") }
            port = value
        }
        // Letters are ASCII here (or hex digits of an IPv6 literal): folding ASCII case is lower-casing.
        return (String(decoding: hostPart.map(\.asciiLowercased), as: UTF8.self), port)
    }

    /// Appends `text` with every byte outside ASCII written as `%XX`.
    private static func appendPercentEncodingNonASCII(_ text: ArraySlice<UInt8>, to out: inout [UInt8]) {
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
