public import HTTPCore

/// Secondary cache keys from `Vary`, [RFC 9111 §4.1](https://www.rfc-editor.org/rfc/rfc9111#section-4.1).
///
/// A stored response answers a new request only if every request field its `Vary` names matches
/// the request that produced it. Values are normalised the ways §4.1 allows without knowing each
/// field's grammar: field lines joined as one list, list members split on commas outside quoted
/// strings, whitespace runs collapsed to one space outside quoted strings, empty members dropped,
/// members rejoined with `", "`. Member order and letter case are kept (they can matter), so
/// `en, fr` and `fr, en` are different keys. An absent field differs from an empty one.
///
/// `Accept-Encoding` is the exception: its value is the ``EncodingVariant`` Larder serves the request
/// in (`gzip` or `identity`), since that is all a stored variant can differ by once Larder asks the
/// origin in those terms (§4.1 lets a cache normalise by the field's semantics).
public enum Vary {
    /// What a response's `Vary` says.
    public enum Field: Sendable, Equatable {
        /// `*`: the response can never be matched.
        case any
        /// The request field names, lower-cased, first occurrence order, duplicates removed; empty
        /// when there is no `Vary`.
        case names([String])
    }

    /// One request field as it goes into the cache key: its lower-cased name and normalised value,
    /// `nil` when the request does not carry it.
    public struct KeyPair: Sendable, Hashable {
        /// The field name, lower-cased.
        public var name: String
        /// The normalised value, or `nil` when absent.
        public var value: String?

        /// Creates a pair.
        public init(name: String, value: String?) {
            self.name = name
            self.value = value
        }
    }

    /// Whether a response's `Vary` lists `*` (``Field/any``), without building its names: a value with no
    /// `*` byte cannot list it, and the usual `Vary` (`Accept-Encoding`) is judged by that alone.
    /// - Parameter headers: The response header section.
    public static func listsAny(in headers: HTTPHeaders) -> Bool {
        headers.values(for: "Vary").contains { $0.utf8.contains(UInt8(ascii: "*")) } && field(in: headers) == .any
    }

    /// The names a response's `Vary` lists (``field(in:)``): none without `Vary`, and none for `*`, which a
    /// caller of this has ruled out or never matches anyway.
    /// - Parameter headers: The response header section.
    public static func names(in headers: HTTPHeaders) -> [String] {
        if case .names(let names) = field(in: headers) { return names }
        return []
    }

    /// Reads every `Vary` line of a response.
    ///
    /// - Parameter headers: The response header section.
    /// - Returns: `.any` when a member is `*`, otherwise the normalised names (members that are not
    ///   valid field names are ignored).
    public static func field(in headers: HTTPHeaders) -> Field {
        var names: [String] = []
        for member in headers.listValues(for: "Vary") {
            if member == "*" { return .any }
            let name = member.lowercased()
            guard name.utf8.allSatisfy(isFieldNameByte), !names.contains(name) else { continue }
            names.append(name)
        }
        return .names(names)
    }

    /// The pairs a cache key hashes for a request, in the order of `names`.
    ///
    /// - Parameters:
    ///   - names: The normalised names from ``field(in:)``.
    ///   - requestHeaders: The request's header section.
    /// - Returns: One pair per name.
    public static func keyPairs(names: [String], requestHeaders: HTTPHeaders) -> [KeyPair] {
        names.map { KeyPair(name: $0, value: normalizedValue(of: $0, in: requestHeaders)) }
    }

    /// Whether a new request selects a stored response (§4.1).
    ///
    /// - Parameters:
    ///   - storedPairs: The pairs recorded from the request that produced the stored response.
    ///   - requestHeaders: The new request's header section.
    /// - Returns: `true` when every recorded field has the same normalised value (or is absent in both).
    public static func matches(storedPairs: [KeyPair], requestHeaders: HTTPHeaders) -> Bool {
        storedPairs.allSatisfy { normalizedValue(of: $0.name, in: requestHeaders) == $0.value }
    }

    /// Whether a new request selects a stored response, given the original request's headers.
    ///
    /// - Parameters:
    ///   - field: The stored response's `Vary`.
    ///   - originalRequest: The headers of the request that produced the stored response.
    ///   - newRequest: The headers of the request being served.
    /// - Returns: `false` for `Vary: *`; otherwise whether every named field matches.
    public static func matches(field: Field, originalRequest: HTTPHeaders, newRequest: HTTPHeaders) -> Bool {
        guard case .names(let names) = field else { return false }
        return matches(storedPairs: keyPairs(names: names, requestHeaders: originalRequest), requestHeaders: newRequest)
    }

    /// The normalised value of a request field, `nil` when absent.
    ///
    /// - Parameters:
    ///   - name: The field name (any case).
    ///   - headers: The request's header section.
    /// - Returns: The members joined by `", "`, or `nil`; for `Accept-Encoding`, the encoding variant.
    public static func normalizedValue(of name: String, in headers: HTTPHeaders) -> String? {
        if name.equalsIgnoringASCIICase("Accept-Encoding") {
            return EncodingVariant(requestHeaders: headers).rawValue
        }
        let lines = headers.values(for: name)
        guard !lines.isEmpty else { return nil }
        var members: [String] = []
        for line in lines {
            members.append(contentsOf: normalizedMembers(of: line))
        }
        return members.joined(separator: ", ")
    }

    /// Splits one field line on commas outside quoted strings, collapsing whitespace outside quotes.
    private static func normalizedMembers(of line: String) -> [String] {
        var members: [String] = []
        var current: [UInt8] = []
        var inQuotes = false
        var escaped = false
        func finish() {
            while current.last == 0x20 { current.removeLast() }
            if !current.isEmpty { members.append(String(decoding: current, as: UTF8.self)) }
            current.removeAll(keepingCapacity: true)
        }
        for byte in line.utf8 {
            if inQuotes {
                current.append(byte)
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inQuotes = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: ","):
                finish()
            case 0x20, 0x09:
                if let last = current.last, last != 0x20 { current.append(0x20) }
            case UInt8(ascii: "\""):
                inQuotes = true
                current.append(byte)
            default:
                current.append(byte)
            }
        }
        finish()
        return members
    }

    private static func isFieldNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}
