public import FoundationEssentials
public import HTTPCore
import HTTPServer

/// Who may use `/fetch` when `--url-signing-key` or `--fetch-token` is set (without either, `/fetch` is
/// open and this is never consulted).
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
        /// Refused.
        case refused(FetchRefusal)
    }

    private let signer: URLSigner
    private let tokens: [Token]
    private let clock: @Sendable () -> Date
    /// Refusals by reason, for `/metrics`.
    public let metrics: FetchAccessMetrics

    /// Creates the policy.
    /// - Parameters:
    ///   - signingKeys: the URL signing keys, the signing one first (`URLSigner`).
    ///   - tokens: the caller tokens.
    ///   - clock: the time `exp` is compared with (injected so tests never sleep).
    ///   - metrics: where refusals are counted.
    public init(
        signingKeys: [[UInt8]] = [], tokens: [Token] = [], clock: @escaping @Sendable () -> Date = Date.init,
        metrics: FetchAccessMetrics = FetchAccessMetrics()
    ) {
        signer = URLSigner(keys: signingKeys)
        self.tokens = tokens.filter { !$0.secret.isEmpty }
        self.clock = clock
        self.metrics = metrics
    }

    /// Whether anything is configured; when not, `/fetch` is open and no guard is mounted.
    public var isEnabled: Bool { !signer.isEmpty || !tokens.isEmpty }

    /// Whether URL signing is configured.
    public var signsURLs: Bool { !signer.isEmpty }

    /// How many signing keys verify, and the caller tokens' names (never a secret), for the start-up line.
    public var summary: (signingKeys: Int, tokenNames: [String]) { (signer.keyCount, tokens.map(\.name)) }

    /// Decides one request and counts a refusal.
    /// - Parameters:
    ///   - method: the request's method.
    ///   - query: the request target's query (`url`, `sig`, `exp` are read).
    ///   - headers: the request's fields (`Larder-Token` is read).
    /// - Returns: who admitted it, or why it is refused.
    public func decide(method: HTTPMethod, query: String?, headers: HTTPHeaders) -> Decision {
        let decision = evaluate(method: method, query: query, headers: headers)
        if case .refused(let refusal) = decision { metrics.refused(refusal.reason) }
        return decision
    }

    private func evaluate(method: HTTPMethod, query: String?, headers: HTTPHeaders) -> Decision {
        let presented = headers.values(for: Self.tokenField)
        var tokenFailed = false
        if !presented.isEmpty {
            if presented.count == 1, let name = tokenName(for: Array(presented[0].utf8)) { return .token(name) }
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

    /// The name of the token whose secret is `presented`; every token is compared in full.
    private func tokenName(for presented: [UInt8]) -> String? {
        AdminAccess.firstMatch(presented, in: tokens) { $0.secret }?.name
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
