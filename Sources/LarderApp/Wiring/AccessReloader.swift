import LarderAPI
import Logging
public import Metrics
import Synchronization

/// Reads `serve`'s key and token files again and puts what they hold in force, without a restart (which
/// would empty the memory tier and drop connections): what `serve` does on SIGHUP.
///
/// The files are `--url-signing-key-file`, `--fetch-token-file`, `--admin-token-file` and
/// `--admin-tokens-file`; keys and tokens given as flags or in the environment stay as they were at
/// start. Every file is read before anything changes: one unreadable or invalid file leaves every policy
/// as it was and logs an error naming the file and line (never a secret). A reload that succeeds swaps the
/// `/fetch` policy and then the admin one, each whole (`FetchAccess.replaceCredentials`,
/// `AdminAccess.replaceTokens`), and logs at info what changed, in counts and names.
/// `larder_access_reloads_total{result="ok|failed"}` counts them.
public final class AccessReloader: MetricsSource {
    /// How one reload ended.
    public enum Outcome: Sendable, Equatable {
        /// The files were read and their contents are in force; what changed, as logged.
        case reloaded(String)
        /// A file could not be used; the policies in force stay.
        case failed(SecretFileError)
    }

    private let admin: AdminSettings
    private let fetch: FetchAccessSettings
    private let adminAccess: AdminAccess
    private let fetchAccess: FetchAccess
    private let logger: Logger
    /// The secrets in force; the lock also keeps two reloads from interleaving.
    private let inForce: Mutex<AccessSecrets>
    private let reloads = AtomicCounters(count: 2)

    /// Creates the reloader of two policies built from `secrets`.
    /// - Parameters:
    ///   - settings: where the files are.
    ///   - secrets: what the policies were built from.
    ///   - adminAccess: the admin policy every admin route shares.
    ///   - fetchAccess: the `/fetch` policy.
    ///   - logger: where reloads are reported.
    init(
        settings: ServeSettings, secrets: AccessSecrets, adminAccess: AdminAccess, fetchAccess: FetchAccess,
        logger: Logger
    ) {
        admin = settings.admin
        fetch = settings.fetchAccess
        self.adminAccess = adminAccess
        self.fetchAccess = fetchAccess
        self.logger = logger
        inForce = Mutex(secrets)
    }

    /// Whether any file would be read again (else a reload changes nothing).
    public var readsFiles: Bool {
        let files = AccessSecrets.files(admin: admin, fetch: fetch)
        return !files.fetch.isEmpty || !files.admin.isEmpty
    }

    /// Reads the files again and puts their keys and tokens in force, or keeps those in force when one
    /// file cannot be used. Logs the outcome and counts it.
    /// - Returns: what changed, or the file and line at fault.
    @discardableResult
    public func reload() -> Outcome {
        inForce.withLock { inForce in
            let files = AccessSecrets.files(admin: admin, fetch: fetch)
            let named = (files.fetch + files.admin).joined(separator: ", ")
            let new: AccessSecrets
            do throws(SecretFileError) {
                new = try AccessSecrets.read(admin: admin, fetch: fetch)
            } catch {
                reloads.add(1, at: 1)
                logger.error(
                    "access not reloaded, the keys and tokens in force stay: \(error)",
                    metadata: ["file": "\(error.path)", "line": "\(error.line.map(String.init) ?? "")"])
                return .failed(error)
            }
            fetchAccess.replaceCredentials(signingKeys: new.signingKeyBytes, tokens: new.fetchAccessTokens)
            let ended = adminAccess.replaceTokens(new.adminAccessTokens)
            var change = new.change(from: inForce)
            if ended > 0 { change += "; \(ended) operator-page session\(ended == 1 ? "" : "s") ended" }
            inForce = new
            reloads.add(1, at: 0)
            logger.info(
                "access reloaded from \(named.isEmpty ? "no file (only flags and environment are set)" : named): \(change)",
                metadata: ["files": "\(named)"])
            return .reloaded(change)
        }
    }

    /// Writes `larder_access_reloads_total`.
    /// - Parameter text: the exposition being built.
    public func write(to text: inout PrometheusText) {
        text.family(
            "larder_access_reloads_total", type: .counter,
            help: "Reloads of the key and token files (SIGHUP): ok, or failed and the keys in force kept.",
            label: "result", values: [("ok", reloads.value(at: 0)), ("failed", reloads.value(at: 1))])
    }
}
