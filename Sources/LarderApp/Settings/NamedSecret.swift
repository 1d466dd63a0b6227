/// A `NAME=SECRET` pair (`--fetch-token`, `--admin-read-token`, `--admin-full-token`).
///
/// The name is a token (letters, digits, `-`, `.`, `_`), shown in logs and audit lines; the secret is
/// 1 to 256 characters of RFC 6750's `b64token` (letters, digits, `-._~+/=`), the alphabet a bearer
/// credential or a header value can carry without quoting, and without the comma that joins a repeated
/// flag's values.
public struct NamedSecret: Sendable, Equatable {
    /// The name.
    public let name: String
    /// The secret.
    public let secret: String

    /// Creates a pair (`parse(_:)` checks text).
    /// - Parameters:
    ///   - name: the name.
    ///   - secret: the secret.
    public init(name: String, secret: String) {
        self.name = name
        self.secret = secret
    }

    /// Reads `NAME=SECRET`.
    /// - Parameter text: the pair.
    /// - Returns: the pair, or a description of what is wrong that never holds the secret.
    public static func parse(_ text: some StringProtocol) -> Result<NamedSecret, SecretProblem> {
        guard let equals = text.firstIndex(of: "=") else { return .failure(.notAPair) }
        let name = String(text[..<equals])
        let secret = String(text[text.index(after: equals)...])
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._".contains($0)) })
        else { return .failure(.badName) }
        guard isSecret(secret) else { return .failure(.badSecret(name: name)) }
        return .success(NamedSecret(name: name, secret: secret))
    }

    /// Whether `text` can be a secret: 1 to 256 `b64token` characters.
    /// - Parameter text: the candidate.
    /// - Returns: whether it can.
    public static func isSecret(_ text: String) -> Bool {
        (1...256).contains(text.utf8.count)
            && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-._~+/=".contains($0)) }
    }

    /// What is wrong with a pair, in words that never repeat the secret.
    public enum SecretProblem: Error, Sendable, Equatable, CustomStringConvertible {
        /// No `=`.
        case notAPair
        /// The name is empty or holds other characters than letters, digits, `-`, `.`, `_`.
        case badName
        /// The secret is empty, too long, or holds characters outside `b64token`.
        case badSecret(name: String)

        public var description: String {
            switch self {
            case .notAPair: "is not NAME=SECRET"
            case .badName: "has a name that is not letters, digits, '-', '.', '_'"
            case .badSecret(let name):
                "has a secret for '\(name)' that is not 1 to 256 of letters, digits, '-._~+/='"
            }
        }
    }
}

extension SettingParser where Value == [NamedSecret] {
    /// Comma-separated `NAME=SECRET` pairs; empty text is none. A bad pair is named by its name alone.
    public static var namedSecrets: Self {
        Self(valueName: "name=secret") { text throws(SettingRejection) in
            try commaSeparated(text) { item throws(SettingRejection) in
                switch NamedSecret.parse(item) {
                case .success(let pair): return pair
                case .failure(let problem):
                    let shown = "\(item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0])=…"
                    throw SettingRejection(text: shown, expected: "NAME=SECRET (it \(problem))")
                }
            }
        }
    }
}

extension SettingParser where Value == [String] {
    /// Comma-separated URL signing keys, each at least 16 bytes; empty text is none. A refused key is
    /// never shown, only its length.
    public static var signingKeys: Self {
        Self(valueName: "key") { text throws(SettingRejection) in
            try commaSeparated(text) { item throws(SettingRejection) in
                guard item.utf8.count >= SigningKeys.minimumBytes else {
                    throw SettingRejection(
                        text: "(a key of \(item.utf8.count) bytes)",
                        expected: "a key of at least \(SigningKeys.minimumBytes) bytes")
                }
                return String(item)
            }
        }
    }
}

/// The rule URL signing keys follow wherever they come from.
public enum SigningKeys {
    /// The shortest key accepted, in bytes: a signed URL in hand lets anyone test guesses of the key
    /// offline, so a short one would fall to brute force.
    public static let minimumBytes = 16
}
