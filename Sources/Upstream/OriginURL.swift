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
        // "://" found among the bytes (a String search through _StringProcessing cost 9 000 instructions
        // of every miss); it is ASCII, so its offsets are scalar boundaries of `text`.
        guard
            let separator = bytes.indices.dropLast(2).first(where: {
                bytes[$0] == UInt8(ascii: ":") && bytes[$0 + 1] == UInt8(ascii: "/")
                    && bytes[$0 + 2] == UInt8(ascii: "/")
            })
        else {
            throw .invalidURL(reason: "not an absolute URL")
        }
        let schemeEnd =
            text.utf8.index(
                text.startIndex, offsetBy: separator)..<text.utf8.index(
                text.startIndex, offsetBy: separator + 3)
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else {
            throw .invalidURL(reason: "scheme must be http or https")
        }
        // Delimiters are found among Unicode scalars, not Characters: `#` followed by a combining mark
        // is one Character, and a Character search would keep the fragment.
        let rest = text[schemeEnd.upperBound...].unicodeScalars
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        let authority = Substring(rest[..<authorityEnd])
        guard !authority.unicodeScalars.contains("@") else { throw .invalidURL(reason: "user info is not allowed") }
        let (host, port) = try Self.parseAuthority(authority)
        var tail = rest[authorityEnd...]
        if let hash = tail.firstIndex(of: "#") { tail = tail[..<hash] }
        let encodedTail = Self.percentEncodingNonASCII(Substring(tail))
        self.scheme = scheme
        self.host = host
        self.port = port
        let hostText = host.contains(":") ? "[\(host)]" : host
        let portText = port.map { ":\($0)" } ?? ""
        // A URL without a path asks for "/" (RFC 9112 §3.2.1).
        let path = encodedTail.isEmpty || encodedTail.first == "?" ? "/" + encodedTail : encodedTail
        let normalized = "\(scheme)://\(hostText)\(portText)\(path)"
        // Escaping non-ASCII bytes triples them: the URL handed on must itself be within the bound.
        guard normalized.utf8.count <= maximumLength else {
            throw .invalidURL(reason: "longer than \(maximumLength) bytes once percent-encoded")
        }
        string = normalized
    }

    /// The normalized URL.
    public var description: String { string }

    private static func parseAuthority(_ authority: Substring) throws(OriginError) -> (String, Int?) {
        var hostPart: Substring
        var portPart: Substring?
        if authority.first == "[" {
            guard let close = authority.firstIndex(of: "]") else { throw .invalidURL(reason: "unclosed IPv6 literal") }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":" else { throw .invalidURL(reason: "junk after IPv6 literal") }
                portPart = after.dropFirst()
            }
            guard IPv6Address(hostPart) != nil else { throw .invalidURL(reason: "malformed IPv6 literal") }
        } else {
            if let colon = authority.lastIndex(of: ":") {
                hostPart = authority[..<colon]
                portPart = authority[authority.index(after: colon)...]
            } else {
                hostPart = authority
            }
            guard !hostPart.isEmpty else { throw .invalidURL(reason: "empty host") }
            let allowed = hostPart.utf8.allSatisfy { byte in
                (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
            }
            guard allowed else {
                throw .invalidURL(reason: "host has characters outside letters, digits, '-', '.', '_'")
            }
            guard hostPart.utf8.count <= 253 else { throw .invalidURL(reason: "host longer than 253 bytes") }
            // WHATWG URL §3.5: a host ending in a number is an IPv4 address, handed to libcurl in dotted
            // decimal (`127.0.0.1.` or `0x7f.1` would otherwise reach a resolver), or no host at all.
            switch IPv4HostSpelling(host: hostPart) {
            case .name: break
            case .address(let address):
                if IPv4HostSpelling.dottedDecimal(hostPart) == nil {
                    hostPart = Substring(IPv4HostSpelling.dotted(address))
                }
            case .invalid: throw .invalidURL(reason: "host ends in a number but is not an IPv4 address")
            }
        }
        guard !hostPart.isEmpty else { throw .invalidURL(reason: "empty host") }
        var port: Int?
        if let portPart, !portPart.isEmpty {
            guard portPart.utf8.count <= 5, portPart.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                let value = Int(portPart), (1...65535).contains(value)
            else { throw .invalidURL(reason: "port must be 1–65535") }
            port = value
        }
        return (hostPart.lowercased(), port)
    }

    private static func percentEncodingNonASCII(_ text: Substring) -> String {
        guard text.utf8.contains(where: { $0 >= 0x80 }) else { return String(text) }
        var out = ""
        let hex = Array("0123456789ABCDEF")
        for byte in text.utf8 {
            if byte >= 0x80 {
                out.append("%")
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            } else {
                out.append(Character(Unicode.Scalar(byte)))
            }
        }
        return out
    }
}
