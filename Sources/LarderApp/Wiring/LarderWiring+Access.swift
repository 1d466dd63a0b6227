import LarderAPI
import Logging

/// A secrets file or value that stops `serve`: `--admin-tokens-file /run/secrets/t:3 is not …`.
struct AccessSettingsError: Error, CustomStringConvertible {
    let underlying: SecretFileError

    var description: String { "\(underlying)" }
}

extension LarderWiring {
    /// The admin policy: every admin token (`--admin-token` or its file as `admin`, the named read and full
    /// ones), and the audit trail of purges and filter changes (info, label `larder.audit`).
    /// - Parameters:
    ///   - settings: the admin settings.
    ///   - logger: the process logger; the audit trail writes through its `larder.audit` part.
    /// - Returns: the one policy every admin route shares.
    /// - Throws: `AccessSettingsError` for an unreadable file or a bad or duplicate token.
    static func makeAdminAccess(_ settings: AdminSettings, logger: Logger) throws(AccessSettingsError) -> AdminAccess {
        let tokens: [AdminSettings.Token]
        do {
            tokens = try settings.tokens()
        } catch {
            throw AccessSettingsError(underlying: error)
        }
        return AdminAccess(
            tokens: tokens.map {
                AdminToken(name: $0.name, secret: $0.secret, scope: $0.scope == .full ? .full : .read)
            },
            audit: AuditTrail.logging(to: logger.part("larder.audit")))
    }

    /// Who may use `/fetch`: the URL signing keys and caller tokens, from flags, environment and files.
    /// - Parameter settings: the `/fetch` access settings.
    /// - Returns: the policy (open when neither is configured).
    /// - Throws: `AccessSettingsError` for an unreadable file, a short key, or a bad or duplicate token.
    static func makeFetchAccess(_ settings: FetchAccessSettings) throws(AccessSettingsError) -> FetchAccess {
        do {
            return FetchAccess(
                signingKeys: try settings.allSigningKeys().map { Array($0.utf8) },
                tokens: try settings.allTokens().map { FetchAccess.Token(name: $0.name, secret: $0.secret) })
        } catch {
            throw AccessSettingsError(underlying: error)
        }
    }
}
