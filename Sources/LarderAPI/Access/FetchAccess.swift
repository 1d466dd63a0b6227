public import FoundationEssentials
public import HTTPCore
import HTTPServer

/// Who may use `/fetch` when `--url-signing-key` or `--fetch-token` is set (without either, `/fetch` is
/// open and this is never consulted, unless a keys or tokens file may fill it on a reload).
///
/// The rule: a request is admitted when it carries a valid caller token in `Larder-Token` (any method),
/// or a valid, unexpired signature (`URLSigner`) and its method is GET or HEAD. Either one suffices; a
/// request with neither is refused with 403, `token-invalid` when it presented a token that matched
/// nothing or when only tokens are configured, `signature-invalid` otherwise.
///
/// The token travels in a header of its own rather than `Authorization`: a caller's `Authorization`
/// belongs to the origin (Larder forwards it), and RFC 9111 §3.5 makes a request that carries one
/// uncacheable unless the response says otherwise; a Larder token must change neither. `FetchHandler`
/// removes the field before the filter chain, the cache rules and the origin see the request.
///
/// The keys and tokens can be replaced while requests are decided (`replaceCredentials`, what `serve`
/// does on SIGHUP): each request is decided against the set in force when it arrived, read once.
public struct FetchAccess: Sendable {
    /// The request field that carries a caller token.
    public static let tokenField = "Larder-Token"

    /// A named caller token.
    public struct Token: Sendable {
        /// The name logs and audit lines use (never the secret).
        public let name: String
        /// The secret's bytes.
        public let secret: [UInt8]

        /// Creates a token.
        /// - Parameters:
        ///   - name: its name.
        ///   - secret: its secret, not empty.
        public init(name: String, secret: String) {
            self.name = name
            self.secret = Array(secret.utf8)
        }
    }

    /// The outcome for one request.
    public enum Decision: Sendable, Equatable {
        /// Admitted by the named token.
        case token(String)
        /// Admitted by a valid signature.
        case signature
        /// Admitted because no key or token is in force (a reload emptied the files).
        case open
        /// Refused.
        case refused(FetchRefusal)
    }

    private let credentials: ReloadableValue<FetchCredentials>
    private let clock: @Sendable () -> Date
    /// Refusals by reason, for `/metrics`.
    public let metrics: FetchAccessMetrics
    /// Whether the keys and tokens may be replaced later (a keys or tokens file is set): the guard is then
    /// mounted even while none is in force.
    public let isReloadable: Bool

    /// Creates the policy.
    /// - Parameters:
    ///   - signingKeys: the URL signing keys, the signing one first (`URLSigner`).
    ///   - tokens: the caller tokens.
    ///   - clock: the time `exp` is compared with (injected so tests never sleep).
    ///   - metrics: where refusals are counted.
    ///   - reloadable: whether `replaceCredentials` may be called later.
    public init(
        signingKeys: [[UInt8]] = [], tokens: [Token] = [], clock: @escaping @Sendable () -> Date = Date.init,
        metrics: FetchAccessMetrics = FetchAccessMetrics(), reloadable: Bool = false
    ) {
        credentials = ReloadableValue(FetchCredentials(signingKeys: signingKeys, tokens: tokens))
        self.clock = clock
        self.metrics = metrics
        isReloadable = reloadable
    }

    /// Whether anything is configured now; when not, `/fetch` is open.
    public var isEnabled: Bool { credentials.current.isEnabled }

    /// Whether `/fetch` needs its guard: something is configured, or may be on a reload. When not, no
    /// guard is mounted and an open `/fetch` pays nothing for it.
    public var needsGuard: Bool { isReloadable || isEnabled }

    /// Whether URL signing is configured now.
    public var signsURLs: Bool { !credentials.current.signer.isEmpty }

    /// How many signing keys verify, and the caller tokens' names (never a secret), for the start-up line.
    public var summary: (signingKeys: Int, tokenNames: [String]) {
        let credentials = credentials.current
        return (credentials.signer.keyCount, credentials.tokens.map(\.name))
    }

    /// Puts new keys and tokens in force for every request decided from now on; requests being decided
    /// finish with the set they read.
    /// - Parameters:
    ///   - signingKeys: the URL signing keys, the signing one first.
    ///   - tokens: the caller tokens.
    public func replaceCredentials(signingKeys: [[UInt8]], tokens: [Token]) {
        credentials.replace(with: FetchCredentials(signingKeys: signingKeys, tokens: tokens))
    }

    /// Decides one request and counts a refusal.
    /// - Parameters:
    ///   - method: the request's method.
    ///   - query: the request target's query (`url`, `sig`, `exp` are read).
    ///   - headers: the request's fields (`Larder-Token` is read).
    /// - Returns: who admitted it, or why it is refused; `.open` while nothing is configured.
    public func decide(method: HTTPMethod, query: String?, headers: HTTPHeaders) -> Decision {
        // Read once: a reload meanwhile does not mix two sets in one decision.
        let credentials = credentials.current
        guard credentials.isEnabled else { return .open }
        let decision = evaluate(method: method, query: query, headers: headers, credentials: credentials)
        if case .refused(let refusal) = decision { metrics.refused(refusal.reason) }
        return decision
    }

    private func evaluate(
        method: HTTPMethod, query: String?, headers: HTTPHeaders, credentials: FetchCredentials
    ) -> Decision {
        let signer = credentials.signer
        let presented = headers.values(for: Self.tokenField)
        var tokenFailed = false
        if !presented.isEmpty {
            if presented.count == 1,
                let name = AdminAccess.firstMatch(Array(presented[0].utf8), in: credentials.tokens, secret: \.secret)?
                    .name
            {
                return .token(name)
            }
            tokenFailed = true
        }
        if signer.isEmpty {
            return .refused(
                FetchRefusal(
                    reason: tokenFailed ? .tokenMismatch : .credentialsMissing,
                    detail: tokenFailed
                        ? "The \(Self.tokenField) field does not hold a caller token of this server."
                        : "This server requires a caller token in the \(Self.tokenField) field."))
        }
        let parameters = SignatureParameters(query: query)
        guard let signature = parameters.signature else {
            if tokenFailed {
                return .refused(
                    FetchRefusal(
                        reason: .tokenMismatch,
                        detail: "The \(Self.tokenField) field does not hold a caller token of this server, "
                            + "and the URL is not signed."))
            }
            return .refused(
                FetchRefusal(
                    reason: parameters.isMalformed ? .signatureMalformed : .credentialsMissing,
                    detail: parameters.isMalformed
                        ? "Give sig and exp at most once each." : "This server requires a signed URL (sig=)."))
        }
        guard let url = FetchHandler.urlParameter(in: query), !parameters.isMalformed else {
            return .refused(
                FetchRefusal(reason: .signatureMalformed, detail: "A signed request has exactly one url, sig and exp."))
        }
        var expires: [UInt8]?
        if let text = parameters.expires {
            guard !text.isEmpty, text.count <= 18, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
                return .refused(
                    FetchRefusal(reason: .signatureMalformed, detail: "exp is Unix seconds: decimal digits only."))
            }
            expires = Array(text.utf8)
        }
        guard signer.verifies(signature: signature.utf8, url: Array(url.utf8), expires: expires) else {
            return .refused(
                FetchRefusal(
                    reason: .signatureMismatch,
                    detail: "The signature does not match the url (and exp) with any configured key."))
        }
        if let text = parameters.expires, let seconds = Int64(text), seconds < Int64(clock().timeIntervalSince1970) {
            return .refused(FetchRefusal(reason: .signatureExpired, detail: "The signed URL expired at \(seconds)."))
        }
        guard method == .get || method == .head else {
            return .refused(
                FetchRefusal(
                    reason: .signatureMethod,
                    detail: "A signature admits GET and HEAD only; other methods need a caller token."))
        }
        return .signature
    }

    /// The raw `sig` and `exp` parameters of a query.
    private struct SignatureParameters {
        var signature: String?
        var expires: String?
        var isMalformed = false

        init(query: String?) {
            for pair in (query ?? "").split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let value = parts.count > 1 ? String(parts[1]) : ""
                switch parts[0] {
                case "sig":
                    if signature != nil { isMalformed = true }
                    signature = value
                case "exp":
                    if expires != nil { isMalformed = true }
                    expires = value
                default: continue
                }
            }
        }
    }
}
