internal import HTTPCore

/// A shell-style wildcard pattern: `*` matches any run of characters (the empty one too), `?`
/// exactly one, everything else itself. Used for `dropParams` and host patterns in filters.
///
/// There is no escape: a literal `*` or `?` is matched by the wildcards themselves. Matching walks
/// the text once per star it backtracks to, so a hostile pattern costs at most
/// O(pattern × text), never exponential time.
public struct GlobPattern: Sendable, Hashable, CustomStringConvertible {
    /// The pattern as written.
    public let pattern: String
    /// Whether ASCII letters match regardless of case (hosts); parameter names use `false`.
    public let ignoresASCIICase: Bool
    private let scalars: [Unicode.Scalar]
    /// The pattern's bytes when it is all ASCII, for the allocation-free fast path.
    private let asciiBytes: [UInt8]?

    /// Creates a pattern.
    ///
    /// - Parameters:
    ///   - pattern: The pattern text.
    ///   - ignoresASCIICase: Whether `A`–`Z` match `a`–`z`.
    public init(_ pattern: String, ignoresASCIICase: Bool = false) {
        self.pattern = pattern
        self.ignoresASCIICase = ignoresASCIICase
        self.scalars = Array(pattern.unicodeScalars)
        self.asciiBytes = pattern.utf8.allSatisfy { $0 < 0x80 } ? Array(pattern.utf8) : nil
    }

    /// The pattern as written.
    public var description: String { pattern }

    /// Patterns are equal when their text and case rule are.
    public static func == (lhs: GlobPattern, rhs: GlobPattern) -> Bool {
        lhs.pattern == rhs.pattern && lhs.ignoresASCIICase == rhs.ignoresASCIICase
    }

    /// Hashes the text and case rule.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(pattern)
        hasher.combine(ignoresASCIICase)
    }

    /// Whether the whole text matches the pattern.
    ///
    /// - Parameter text: The text to test.
    /// - Returns: `true` on a full match.
    public func matches(_ text: some StringProtocol) -> Bool {
        if let asciiBytes {
            let fast = text.utf8.withContiguousStorageIfAvailable { subject -> Bool? in
                guard subject.allSatisfy({ $0 < 0x80 }) else { return nil }
                return Self.match(asciiBytes, subject, wildcard: 0x2A, single: 0x3F) { sameByte($0, $1) }
            }
            if let result = fast ?? nil { return result }
        }
        return Self.match(scalars, Array(text.unicodeScalars), wildcard: "*", single: "?") { same($0, $1) }
    }

    /// The matcher: greedy, remembering only the latest star and backtracking to it.
    private static func match<P: RandomAccessCollection, S: RandomAccessCollection>(
        _ pattern: P, _ subject: S, wildcard: P.Element, single: P.Element, equal: (P.Element, S.Element) -> Bool
    ) -> Bool where P.Index == Int, S.Index == Int, P.Element: Equatable {
        var patternIndex = pattern.startIndex
        var subjectIndex = subject.startIndex
        // The latest star seen, and where in the subject its match currently ends.
        var starIndex: Int?
        var starSubjectIndex = subjectIndex
        while subjectIndex < subject.endIndex {
            if patternIndex < pattern.endIndex {
                let wanted = pattern[patternIndex]
                if wanted == wildcard {
                    starIndex = patternIndex
                    starSubjectIndex = subjectIndex
                    patternIndex += 1
                    continue
                }
                if wanted == single || equal(wanted, subject[subjectIndex]) {
                    patternIndex += 1
                    subjectIndex += 1
                    continue
                }
            }
            guard let star = starIndex else { return false }
            // Let the last star swallow one more character and retry from just after it.
            patternIndex = star + 1
            starSubjectIndex += 1
            subjectIndex = starSubjectIndex
        }
        while patternIndex < pattern.endIndex && pattern[patternIndex] == wildcard { patternIndex += 1 }
        return patternIndex == pattern.endIndex
    }

    private func sameByte(_ a: UInt8, _ b: UInt8) -> Bool {
        ignoresASCIICase ? a.asciiLowercased == b.asciiLowercased : a == b
    }

    private func same(_ a: Unicode.Scalar, _ b: Unicode.Scalar) -> Bool {
        guard ignoresASCIICase, a.isASCII, b.isASCII else { return a == b }
        return UInt8(a.value).asciiLowercased == UInt8(b.value).asciiLowercased
    }
}
