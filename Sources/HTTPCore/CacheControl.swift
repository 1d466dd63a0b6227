/// The directives of a `Cache-Control` field, request or response
/// ([RFC 9111 §5.2](https://www.rfc-editor.org/rfc/rfc9111#section-5.2)).
///
/// Every field line is read; directives keep their order, duplicates and unknown extensions.
/// Names compare case-insensitively (stored lower-cased); an argument may be a token or a
/// quoted-string and is stored unquoted. An element that does not follow
/// `token [ "=" ( token / quoted-string ) ]` is kept as a *malformed* directive when it starts with a
/// valid name (so `max-age=5x` still counts as a `max-age`, one with an invalid value) and dropped
/// otherwise. Spaces around `=` are tolerated.
///
/// The typed accessors apply RFC 9111 §4.2.1's advice on bad input: a directive whose argument is
/// invalid, or that appears twice with different values, reads as ``DeltaSeconds/invalid``, and the
/// policy treats that as the most restrictive choice (a response with an invalid `max-age` is stale).
public struct CacheControl: Sendable, Equatable {
    /// One `cache-directive`.
    public struct Directive: Sendable, Equatable {
        /// The directive name, lower-cased.
        public var name: String
        /// The argument with quotes and escapes removed, or `nil` when there is none.
        public var argument: String?
        /// Whether the element did not follow the grammar after its name.
        public var isMalformed: Bool

        /// Creates a directive.
        public init(name: String, argument: String? = nil, isMalformed: Bool = false) {
            self.name = name
            self.argument = argument
            self.isMalformed = isMalformed
        }
    }

    /// The value of a directive whose argument is `delta-seconds`
    /// ([RFC 9111 §1.2.2](https://www.rfc-editor.org/rfc/rfc9111#section-1.2.2)).
    public enum DeltaSeconds: Sendable, Equatable {
        /// The directive is not there.
        case absent
        /// The directive is there without an argument (meaningful for `max-stale`).
        case noArgument
        /// A valid value; values past 2^31 are clamped to 2^31 as §1.2.2 requires.
        case seconds(Int64)
        /// The argument is not `1*DIGIT`, or the directive repeats with different values.
        case invalid

        /// The seconds when valid, else `nil`.
        public var value: Int64? {
            if case .seconds(let seconds) = self { return seconds }
            return nil
        }

        /// Whether the directive appears at all, in any form.
        public var isPresent: Bool { self != .absent }
    }

    /// The largest delta-seconds a recipient needs to represent (RFC 9111 §1.2.2).
    public static let maximumDeltaSeconds: Int64 = 2_147_483_648

    /// The directives in the order they appeared.
    public var directives: [Directive]

    /// Creates the directives from a list.
    public init(directives: [Directive] = []) {
        self.directives = directives
    }

    /// Parses every `Cache-Control` line of a header section.
    public init(headers: HTTPHeaders) {
        self.init(fieldValues: headers.values(for: "Cache-Control"))
    }

    /// Parses `Cache-Control` field values, one per field line, as if joined by commas.
    public init(fieldValues: [String]) {
        var directives: [Directive] = []
        for value in fieldValues {
            var copy = value
            copy.withUTF8 { bytes in
                var parser = CacheControlParser(bytes: bytes)
                parser.parse(into: &directives)
            }
        }
        self.directives = directives
    }

    /// Whether a directive of that name appears, in any form (e.g. `no-cache` or `no-cache="x"`).
    public func contains(_ name: String) -> Bool {
        contains(lowercasedName: Self.lowercasedName(name))
    }

    /// `contains` for a name already in lower case (the typed accessors), skipping the case fold.
    func contains(lowercasedName name: String) -> Bool {
        directives.contains { $0.name == name }
    }

    /// The arguments of every occurrence of the named directive, in order (`nil` for none).
    public func arguments(of name: String) -> [String?] {
        let key = Self.lowercasedName(name)
        return directives.filter { $0.name == key }.map(\.argument)
    }

    /// Reads a directive whose argument is `delta-seconds`; see ``DeltaSeconds``.
    ///
    /// Occurrences that agree collapse into one value; any malformed occurrence, or two that differ
    /// (one of them possibly argument-less), make the result `.invalid`.
    public func deltaSeconds(_ name: String) -> DeltaSeconds {
        deltaSeconds(lowercasedName: Self.lowercasedName(name))
    }

    /// `deltaSeconds` for a name already in lower case (the typed accessors).
    func deltaSeconds(lowercasedName key: String) -> DeltaSeconds {
        var result = DeltaSeconds.absent
        for directive in directives where directive.name == key {
            let current: DeltaSeconds
            if directive.isMalformed {
                current = .invalid
            } else if let argument = directive.argument {
                current = Self.parseDeltaSeconds(argument).map(DeltaSeconds.seconds) ?? .invalid
            } else {
                current = .noArgument
            }
            switch result {
            case .absent: result = current
            case let previous where previous == current: continue
            default: return .invalid
            }
        }
        return result
    }

    /// The field names listed in a qualified form such as `no-cache="Set-Cookie, X-Id"` or
    /// `private="Set-Cookie"`, lower-cased; empty when the directive is only in its bare form.
    public func fieldNames(of name: String) -> [String] {
        arguments(of: name).compactMap { $0 }.flatMap { list in
            list.split(separator: ",").map { $0.trimmingHTTPWhitespace().lowercased() }.filter { !$0.isEmpty }
        }
    }

    /// The name with ASCII letters lower-cased; the same string when it has none (the usual case).
    private static func lowercasedName(_ name: String) -> String {
        guard name.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return name }
        return String(asciiLowercasing: name.utf8)
    }

    /// Parses `delta-seconds = 1*DIGIT`, clamping to 2^31 (RFC 9111 §1.2.2). Signs, spaces and an
    /// empty string are invalid.
    public static func parseDeltaSeconds(_ text: String) -> Int64? {
        guard !text.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in text.utf8 {
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            if value < maximumDeltaSeconds {
                value = value * 10 + Int64(byte - 0x30)
            }
        }
        return min(value, maximumDeltaSeconds)
    }
}
