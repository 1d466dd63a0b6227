import ArgumentParser
import FoundationEssentials
import LarderAPI
import LarderApp

/// `larder sign URL`: prints the signed `/fetch` path of a URL (`/fetch?url=…[&exp=…]&sig=…`), for
/// scripts and templates that hand URLs to callers of a server run with `--url-signing-key`.
struct SignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign", abstract: "Print the signed /fetch path of a URL (for --url-signing-key).",
        discussion: """
            The key is the first of --key, LARDER_URL_SIGNING_KEY, then --key-file or LARDER_URL_SIGNING_KEY_FILE, \
            as serve reads them. The signature is base64url (unpadded) HMAC-SHA256 over the URL, or over the \
            URL, a line feed and exp when --expires-in or --expires-at is given (docs/API.md#signed-urls).
            Example: curl "http://larder:8080$(larder sign --expires-in 3600 https://example.com/a.png)"
            """)

    @Option(help: "The signing key (default: LARDER_URL_SIGNING_KEY; a file keeps it out of ps).") var key: String?
    @Option(help: "File whose first key signs (default: LARDER_URL_SIGNING_KEY_FILE).") var keyFile: String?
    @Option(help: "Seconds from now after which the URL is refused (exp=).") var expiresIn: Int64?
    @Option(help: "Unix time after which the URL is refused (exp=).") var expiresAt: Int64?
    @Argument(help: "The absolute http(s) URL to sign, as the url parameter will carry it.") var url: String

    func validate() throws {
        guard expiresIn == nil || expiresAt == nil else {
            throw ValidationError("give --expires-in or --expires-at, not both")
        }
        if let expiresIn, expiresIn < 0 { throw ValidationError("--expires-in must not be negative") }
        if let expiresAt, expiresAt < 0 { throw ValidationError("--expires-at must not be negative") }
        guard !url.contains("\n") else { throw ValidationError("a URL holds no line feed") }
    }

    func run() throws {
        var flags: [String: String] = [:]
        if let key { flags["url-signing-key"] = key }
        if let keyFile { flags["url-signing-key-file"] = keyFile }
        let keys: [String]
        do {
            keys = try FetchAccessSettings.resolve(flags: flags, environment: ProcessInfo.processInfo.environment)
                .allSigningKeys()
        } catch {
            throw ValidationError("\(error)")
        }
        guard let first = keys.first else {
            throw ValidationError("no signing key: give --key or --key-file (or LARDER_URL_SIGNING_KEY[_FILE])")
        }
        let expires = expiresAt ?? expiresIn.map { Int64(Date().timeIntervalSince1970) + $0 }
        guard let path = URLSigner(keys: [Array(first.utf8)]).signedPath(url: url, expires: expires) else {
            throw ValidationError("cannot sign '\(url)'")
        }
        print(path)
    }
}
