/// Who may use the admin API, and `/metrics`.
public struct AdminSettings: SettingGroup {
    /// Every admin route, as help and the start-up line name them (a test holds this to `openapi.yaml`).
    public static let routes = [
        "/cache", "/cache/<key>", "/cache/<key>/meta", "/filters", "/filters/<name>", "/filters/explain",
        "/filters/defaults", "/fetches", "/ui/", "/ui/operator.js", "/ui/entries.js", "/ui/operator.css",
        "/ui/icon.svg",
    ]

    /// How help and the README title this group.
    public static let title = "Admin"

    /// Who may read `/metrics`.
    public enum MetricsAccess: String, Sendable, CaseIterable {
        /// Any client, like `/livez` (a scrape names no URL, key or client).
        case `public`
        /// The admin rules, read scope.
        case admin
    }

    /// What an admin token may do.
    public enum Scope: String, Sendable {
        /// GET and HEAD of every admin route.
        case read
        /// Every method.
        case full
    }

    /// One admin token as configured.
    public struct Token: Sendable, Equatable {
        /// Its name (audit lines).
        public let name: String
        /// Its secret.
        public let secret: String
        /// What it may do.
        public let scope: Scope
    }

    @Setting(
        "admin-token", default: "", .optionalText("token"),
        help:
            "Bearer token the admin API requires (/cache, /cache/<key>, /cache/<key>/meta, /filters, /filters/<name>, /filters/explain, /filters/defaults, /fetches, and the operator page /ui/, /ui/operator.js, /ui/entries.js, /ui/operator.css, /ui/icon.svg, which also takes it through its login form); without one it answers loopback clients only. Full access, named admin."
    )
    public var token: String?
    @Setting(
        "admin-token-file", default: "", .optionalText("path"),
        help:
            "File whose first line is --admin-token, so that it shows in neither ps nor the environment; re-read on SIGHUP."
    )
    public var tokenFile: String?
    @Setting(
        "admin-read-token", default: "", .namedSecrets, repeatable: true,
        help: "NAME=SECRET of an admin token that may only read: GET and HEAD (repeatable; env: comma-separated).")
    public var readTokens: [NamedSecret]
    @Setting(
        "admin-full-token", default: "", .namedSecrets, repeatable: true,
        help: "NAME=SECRET of an admin token that may also purge, delete and change filters (repeatable).")
    public var fullTokens: [NamedSecret]
    @Setting(
        "admin-tokens-file", default: "", .optionalText("path"),
        help:
            "File of admin tokens, one a line: read NAME=SECRET or full NAME=SECRET (# starts a comment); re-read on SIGHUP."
    )
    public var tokensFile: String?
    @Setting(
        "metrics-access", default: "public", .choice("access"),
        help: "Who may read /metrics: public (any client) or admin (the admin rules; a read token suffices).")
    public var metricsAccess: MetricsAccess

    /// The defaults outside a resolution; see `SettingGroup.resolve(flags:environment:)`.
    public init() {}

    /// The single token of `--admin-token`, or else the first line of `--admin-token-file`.
    /// - Returns: the token, `nil` when neither is set.
    /// - Throws: `SecretFileError` when both are set, or the file is unreadable, empty or not a token.
    public func singleToken() throws(SecretFileError) -> String? {
        guard let tokenFile else { return token }
        guard token == nil else {
            throw SecretFileError(
                path: "--admin-token-file", line: nil, problem: "and --admin-token are both set; keep one")
        }
        guard let first = try SecretFile.lines(path: tokenFile).first else {
            throw SecretFileError(path: tokenFile, line: nil, problem: "holds no token")
        }
        guard NamedSecret.isSecret(first.text) else {
            throw SecretFileError(
                path: tokenFile, line: first.number, problem: "is not 1 to 256 of letters, digits, '-._~+/='")
        }
        return first.text
    }

    /// Every admin token: `--admin-token` (or its file) as `admin` with full access, then the named ones
    /// from flags and from `--admin-tokens-file`.
    /// - Returns: the tokens; empty means loopback clients only.
    /// - Throws: `SecretFileError` for an unreadable file, a bad line, or a name or secret used twice.
    public func tokens() throws(SecretFileError) -> [Token] {
        var tokens: [Token] = []
        if let single = try singleToken() { tokens.append(Token(name: "admin", secret: single, scope: .full)) }
        tokens += readTokens.map { Token(name: $0.name, secret: $0.secret, scope: .read) }
        tokens += fullTokens.map { Token(name: $0.name, secret: $0.secret, scope: .full) }
        if let tokensFile {
            for line in try SecretFile.lines(path: tokensFile) {
                let parts = line.text.split(separator: " ", maxSplits: 1)
                guard parts.count == 2, let scope = Scope(rawValue: String(parts[0])) else {
                    throw SecretFileError(
                        path: tokensFile, line: line.number, problem: "is not 'read NAME=SECRET' or 'full NAME=SECRET'")
                }
                switch NamedSecret.parse(parts[1].trimmingBlanks) {
                case .success(let pair): tokens.append(Token(name: pair.name, secret: pair.secret, scope: scope))
                case .failure(let problem):
                    throw SecretFileError(path: tokensFile, line: line.number, problem: "\(problem)")
                }
            }
        }
        try Self.checkDistinct(tokens.map { ($0.name, $0.secret) }, what: "admin token")
        return tokens
    }

    /// Refuses two tokens with one name (audit lines could not tell them apart) or one secret (the name
    /// and scope it stands for would be ambiguous).
    /// - Parameters:
    ///   - pairs: names and secrets.
    ///   - what: what they are, for the message.
    /// - Throws: `SecretFileError` naming the duplicate name (never a secret).
    static func checkDistinct(_ pairs: [(name: String, secret: String)], what: String) throws(SecretFileError) {
        var names = Set<String>()
        var secrets = Set<String>()
        for (name, secret) in pairs {
            guard names.insert(name).inserted else {
                throw SecretFileError(path: what, line: nil, problem: "'\(name)' is configured twice")
            }
            guard secrets.insert(secret).inserted else {
                throw SecretFileError(path: what, line: nil, problem: "'\(name)' has the secret of another one")
            }
        }
    }
}
