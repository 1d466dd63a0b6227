import LarderAPI
import Logging

/// A secrets file or value that stops `serve`: `--admin-tokens-file /run/secrets/t:3 is not …`.
struct AccessSettingsError: Error, CustomStringConvertible {
    let underlying: SecretFileError

    var description: String { "\(underlying)" }
}

extension LarderWiring {
    /// Who may use the admin API and `/fetch`, and what re-reads their files on SIGHUP. Every secret is read
    /// here, before the store exists: a bad file stops the start.
    /// - Parameters:
    ///   - settings: the resolved settings (the admin and `/fetch` access groups are read).
    ///   - logger: the process logger; the audit trail writes through its `larder.audit` part, reloads
    ///     through `larder.access`.
    /// - Returns: the one admin policy every admin route shares, the `/fetch` policy, and their reloader.
    /// - Throws: `AccessSettingsError` for an unreadable file, a short key, or a bad or duplicate token.
    static func makeAccess(settings: ServeSettings, logger: Logger) throws(AccessSettingsError) -> (
        admin: AdminAccess, fetch: FetchAccess, reloader: AccessReloader
    ) {
        let secrets: AccessSecrets
        do {
            secrets = try AccessSecrets.read(admin: settings.admin, fetch: settings.fetchAccess)
        } catch {
            throw AccessSettingsError(underlying: error)
        }
        let files = AccessSecrets.files(admin: settings.admin, fetch: settings.fetchAccess)
        // With a file set, a reload may fill what is empty now: the policies are built for that (the
        // /fetch guard mounted, the operator page's sessions kept).
        let admin = AdminAccess(
            tokens: secrets.adminAccessTokens, audit: AuditTrail.logging(to: logger.part("larder.audit")),
            reloadable: !files.admin.isEmpty)
        let fetch = FetchAccess(
            signingKeys: secrets.signingKeyBytes, tokens: secrets.fetchAccessTokens, reloadable: !files.fetch.isEmpty)
        let reloader = AccessReloader(
            settings: settings, secrets: secrets, adminAccess: admin, fetchAccess: fetch,
            logger: logger.part("larder.access"))
        return (admin, fetch, reloader)
    }
}
