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

    /// Creates a pattern.
    ///
    /// - Parameters:
    ///   - pattern: The pattern text.
    ///   - ignoresASCIICase: Whether `A`–`Z` match `a`–`z`.
    public init(_ pattern: String, ignoresASCIICase: Bool = false) {
        self.pattern = pattern
        self.ignoresASCIICase = ignoresASCIICase
        self.scalars = Array(pattern.unicodeScalars)
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
        let subject = Array(text.unicodeScalars)
        var patternIndex = 0
        var subjectIndex = 0
        // The latest star seen, and where in the subject its match currently ends.
        var starIndex: Int?
        var starSubjectIndex = 0
        while subjectIndex < subject.count {
            if patternIndex < scalars.count {
                let wanted = scalars[patternIndex]
                if wanted == "*" {
                    starIndex = patternIndex
                    starSubjectIndex = subjectIndex
                    patternIndex += 1
                    continue
                }
                if wanted == "?" || same(wanted, subject[subjectIndex]) {
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
        while patternIndex < scalars.count && scalars[patternIndex] == "*" { patternIndex += 1 }
        return patternIndex == scalars.count
    }

    private func same(_ a: Unicode.Scalar, _ b: Unicode.Scalar) -> Bool {
        guard ignoresASCIICase, a.isASCII, b.isASCII else { return a == b }
        return UInt8(a.value).asciiLowercased == UInt8(b.value).asciiLowercased
    }
}
