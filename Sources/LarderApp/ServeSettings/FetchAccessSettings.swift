/// Who may use `/fetch`: signed URLs and caller tokens (both off by default: `/fetch` is open).
public struct FetchAccessSettings: SettingGroup {
    /// How help and the README title this group.
    public static let title = "Access to /fetch"

    @Setting(
        "url-signing-key", default: "", .signingKeys, repeatable: true,
        help:
            "Key (16 bytes or more) /fetch URLs must be signed with (sig=, exp=; larder sign); repeatable for rotation: the first signs, all verify."
    )
    public var signingKeys: [String]
    @Setting(
        "url-signing-key-file", default: "", .optionalText("path"),
        help:
            "File of URL signing keys, one a line, added after --url-signing-key (# starts a comment); re-read on SIGHUP."
    )
    public var signingKeyFile: String?
    @Setting(
        "fetch-token", default: "", .namedSecrets, repeatable: true,
        help: "NAME=SECRET of a caller token /fetch accepts in the Larder-Token header (repeatable).")
    public var tokens: [NamedSecret]
    @Setting(
        "fetch-token-file", default: "", .optionalText("path"),
        help: "File of caller tokens, one NAME=SECRET a line (# starts a comment); re-read on SIGHUP.")
    public var tokenFile: String?

    /// The defaults outside a resolution; see `SettingGroup.resolve(flags:environment:)`.
    public init() {}

    /// Every signing key: the flags' then the file's, the first one signing.
    /// - Returns: the keys; empty means URLs need no signature.
    /// - Throws: `SecretFileError` for an unreadable file or a key shorter than 16 bytes.
    public func allSigningKeys() throws(SecretFileError) -> [String] {
        var keys = signingKeys
        if let signingKeyFile {
            for line in try SecretFile.lines(path: signingKeyFile) {
                guard line.text.utf8.count >= SigningKeys.minimumBytes else {
                    throw SecretFileError(
                        path: signingKeyFile, line: line.number,
                        problem: "holds a key shorter than \(SigningKeys.minimumBytes) bytes")
                }
                keys.append(line.text)
            }
        }
        return keys
    }

    /// Every caller token: the flags' then the file's.
    /// - Returns: the tokens.
    /// - Throws: `SecretFileError` for an unreadable file, a bad line, or a name or secret used twice.
    public func allTokens() throws(SecretFileError) -> [NamedSecret] {
        var tokens = self.tokens
        if let tokenFile {
            for line in try SecretFile.lines(path: tokenFile) {
                switch NamedSecret.parse(line.text) {
                case .success(let pair): tokens.append(pair)
                case .failure(let problem):
                    throw SecretFileError(path: tokenFile, line: line.number, problem: "\(problem)")
                }
            }
        }
        try AdminSettings.checkDistinct(tokens.map { ($0.name, $0.secret) }, what: "fetch token")
        return tokens
    }
}
