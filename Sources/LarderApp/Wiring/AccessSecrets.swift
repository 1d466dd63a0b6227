import LarderAPI

/// Every key and token `serve`'s access policies hold, read from the flags, the environment and the
/// secrets files at one moment: at start, and again on each reload (`AccessReloader`).
struct AccessSecrets: Sendable, Equatable {
    /// The URL signing keys, the flags' then `--url-signing-key-file`'s.
    var signingKeys: [String]
    /// The caller tokens, the flags' then `--fetch-token-file`'s.
    var fetchTokens: [NamedSecret]
    /// The admin tokens: `--admin-token` or its file, the named flags, then `--admin-tokens-file`.
    var adminTokens: [AdminSettings.Token]

    /// Reads them all; nothing is kept when one file fails.
    /// - Parameters:
    ///   - admin: the admin settings.
    ///   - fetch: the `/fetch` access settings.
    /// - Returns: the secrets.
    /// - Throws: `SecretFileError` naming the file and line at fault (never the secret).
    static func read(admin: AdminSettings, fetch: FetchAccessSettings) throws(SecretFileError) -> AccessSecrets {
        AccessSecrets(
            signingKeys: try fetch.allSigningKeys(), fetchTokens: try fetch.allTokens(), adminTokens: try admin.tokens()
        )
    }

    /// The secrets files a reload reads again (flags and the environment stay as they were at start).
    /// - Parameters:
    ///   - admin: the admin settings.
    ///   - fetch: the `/fetch` access settings.
    /// - Returns: the files' paths, in the order they are read.
    static func files(admin: AdminSettings, fetch: FetchAccessSettings) -> (fetch: [String], admin: [String]) {
        (
            [fetch.signingKeyFile, fetch.tokenFile].compactMap { $0 },
            [admin.tokenFile, admin.tokensFile].compactMap { $0 }
        )
    }

    /// The signing keys as `FetchAccess` takes them.
    var signingKeyBytes: [[UInt8]] { signingKeys.map { Array($0.utf8) } }

    /// The caller tokens as `FetchAccess` takes them.
    var fetchAccessTokens: [FetchAccess.Token] {
        fetchTokens.map { FetchAccess.Token(name: $0.name, secret: $0.secret) }
    }

    /// The admin tokens as `AdminAccess` takes them.
    var adminAccessTokens: [AdminToken] {
        adminTokens.map { AdminToken(name: $0.name, secret: $0.secret, scope: $0.scope == .full ? .full : .read) }
    }

    /// What changed from `old`, in counts and names only (a log line: never a secret), e.g.
    /// `signing keys 2 (1 added, 1 removed); fetch tokens billing (unchanged); admin tokens ops (full) (changed ops)`.
    /// - Parameter old: the secrets in force before.
    /// - Returns: the description.
    func change(from old: AccessSecrets) -> String {
        let addedKeys = signingKeys.count { !old.signingKeys.contains($0) }
        let removedKeys = old.signingKeys.count { !signingKeys.contains($0) }
        var keys = "signing keys \(signingKeys.count)"
        keys += addedKeys + removedKeys == 0 ? " (unchanged)" : " (\(addedKeys) added, \(removedKeys) removed)"
        let fetch = Self.namesChange(
            "fetch tokens", now: fetchTokens.map { ($0.name, $0.secret) },
            before: old.fetchTokens.map { ($0.name, $0.secret) },
            shown: { $0 })
        let admin = Self.namesChange(
            "admin tokens", now: adminTokens.map { ($0.name, "\($0.scope.rawValue) \($0.secret)") },
            before: old.adminTokens.map { ($0.name, "\($0.scope.rawValue) \($0.secret)") },
            shown: { name in "\(name) (\(adminTokens.first { $0.name == name }?.scope.rawValue ?? ""))" })
        return [keys, fetch, admin].joined(separator: "; ")
    }

    /// `what names… (added a; removed b; changed c)`: a name is changed when its secret (or scope) is not
    /// what it was.
    private static func namesChange(
        _ what: String, now: [(name: String, value: String)], before: [(name: String, value: String)],
        shown: (String) -> String
    ) -> String {
        let beforeByName = Dictionary(before, uniquingKeysWith: { first, _ in first })
        let nowNames = Set(now.map(\.name))
        let added = now.filter { beforeByName[$0.name] == nil }.map(\.name)
        let removed = before.filter { !nowNames.contains($0.name) }.map(\.name)
        let changed = now.filter { current in
            guard let previous = beforeByName[current.name] else { return false }
            return previous != current.value
        }.map(\.name)
        var text = what + " " + (now.isEmpty ? "none" : now.map { shown($0.name) }.joined(separator: ", "))
        var parts: [String] = []
        if !added.isEmpty { parts.append("added " + added.joined(separator: ", ")) }
        if !removed.isEmpty { parts.append("removed " + removed.joined(separator: ", ")) }
        if !changed.isEmpty { parts.append("changed " + changed.joined(separator: ", ")) }
        text += parts.isEmpty ? " (unchanged)" : " (" + parts.joined(separator: "; ") + ")"
        return text
    }
}
