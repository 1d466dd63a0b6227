public import HTTPCore
public import HTTPServer

/// Who may use the admin endpoints (`/cache`, `/filters`, `/fetches`, the operator page `/ui/`, and
/// `/metrics` with `--metrics-access admin`).
///
/// With tokens configured, every request must carry `Authorization: Bearer <token>` (RFC 6750 §2.1),
/// from loopback too, or the cookie of a live operator-page session (`AdminSessions`, opened by
/// presenting a token once to `POST /ui/login`). Without any, only loopback clients are served, with full
/// access. Each token is named and has a scope (`AdminToken`): `read` tokens may use GET and HEAD, `full`
/// ones every method; a session has the scope of the token that opened it. Failures follow RFC 6750 §3.1:
/// no credentials (or another scheme) is 401 with a bare `WWW-Authenticate: Bearer` challenge; a wrong
/// token is also 401, with `error="invalid_token"`; a read token on a write is 403 with
/// `error="insufficient_scope"`; a malformed Bearer field is 400 `invalid_request`. A client off loopback
/// while no token is configured is 403: no credential could help it.
///
/// Against cross-site request forgery, a state-changing request (any method but GET, HEAD and OPTIONS)
/// that a browser could have made must also carry the custom header `X-Larder-CSRF`: one allowed by its
/// session cookie, or one that carries an `Origin` field (browsers send it with every such request;
/// curl does not). A cross-site page cannot add a custom header without a CORS preflight, which Larder
/// never grants. Such a request without the header is 403 `missing-csrf-header`.
///
/// The tokens can be replaced while requests are checked (`replaceTokens`, what `serve` does on SIGHUP):
/// each request is checked against the set in force when it arrived, read once, and the operator-page
/// sessions of a token that was removed or changed end with the replacement.
public struct AdminAccess: Sendable {
    /// The outcome of checking one request.
    public enum Decision: Sendable, Equatable {
        /// Serve the request.
        case allow
        /// Refuse it with this error.
        case deny(APIError)
    }

    /// The realm named in challenges.
    public static let realm = "larder-admin"

    /// The header a state-changing request made by a browser must carry (any non-empty value).
    public static let csrfHeader = "X-Larder-CSRF"

    private let tokens: ReloadableValue<[AdminToken]>
    /// The operator page's sessions; `nil` without a token (loopback clients need none) unless a reload may
    /// add one.
    public let sessions: AdminSessions?
    /// Whether the tokens may be replaced later (a tokens file is set).
    public let isReloadable: Bool
    /// Where every state-changing admin request is recorded once answered (`AdminGuard`); `nil` for none.
    public let audit: AuditTrail?

    /// Creates the policy with one full-scope token named `admin` (`--admin-token`).
    /// - Parameters:
    ///   - token: the admin token; `nil` or empty means loopback clients only.
    ///   - sessions: the login sessions every admin route shares; a new set when `nil` (give one policy,
    ///     or one set, to every route, or a session opened on one route is unknown to another).
    public init(token: String?, sessions: AdminSessions? = nil) {
        self.init(tokens: token.map { [AdminToken(name: "admin", secret: $0, scope: .full)] } ?? [], sessions: sessions)
    }

    /// Creates the policy with named tokens.
    /// - Parameters:
    ///   - tokens: the tokens; none (empty secrets are dropped) means loopback clients only.
    ///   - sessions: the login sessions every admin route shares; a new set when `nil`.
    ///   - audit: where state-changing requests are recorded.
    ///   - reloadable: whether `replaceTokens` may be called later.
    public init(
        tokens: [AdminToken], sessions: AdminSessions? = nil, audit: AuditTrail? = nil, reloadable: Bool = false
    ) {
        let tokens = tokens.filter { !$0.secret.isEmpty }
        self.tokens = ReloadableValue(tokens)
        self.sessions = tokens.isEmpty && !reloadable ? nil : sessions ?? AdminSessions()
        self.audit = audit
        isReloadable = reloadable
    }

    /// Whether a token is configured now.
    public var requiresToken: Bool { !tokens.current.isEmpty }

    /// Puts new tokens in force for every request checked from now on, and ends the operator-page
    /// sessions opened with a token that is gone or whose secret or scope changed (a token rotated because
    /// it leaked must not live on in a browser).
    /// - Parameter new: the tokens; none means loopback clients only.
    /// - Returns: how many sessions ended.
    @discardableResult
    public func replaceTokens(_ new: [AdminToken]) -> Int {
        let new = new.filter { !$0.secret.isEmpty }
        let old = tokens.replace(with: new)
        let ended = Set(
            old.filter { token in
                !new.contains { $0.name == token.name && $0.scope == token.scope && $0.secret == token.secret }
            }.map(\.name))
        return sessions?.close(openedBy: ended) ?? 0
    }

    /// Decides one request: `authorize(request:context:)` without the identity.
    /// - Parameters:
    ///   - request: the request.
    ///   - context: where it came from.
    /// - Returns: `.allow` or the error to answer with.
    public func decide(request: HTTPRequest, context: HTTPRequestContext) -> Decision {
        switch authorize(request: request, context: context) {
        case .success: .allow
        case .failure(let error): .deny(error)
        }
    }

    /// Checks one request: its credentials (a Bearer token, or else a session cookie), their scope against
    /// its method, then the CSRF header when a browser could have sent it.
    /// - Parameters:
    ///   - request: the request; its method and its `Authorization`, `Cookie`, `Origin` and
    ///     `X-Larder-CSRF` fields are read.
    ///   - context: where it came from.
    /// - Returns: who made it, or the error to answer with.
    public func authorize(request: HTTPRequest, context: HTTPRequestContext) -> Result<AdminIdentity, APIError> {
        let authorization = request.headers.values(for: "Authorization")
        let identity: AdminIdentity
        if authorization.isEmpty, let session = liveSession(request.headers) {
            identity = session
        } else {
            switch authenticate(authorization: authorization, remote: context.remoteAddress) {
            case .success(let found): identity = found
            case .failure(let error): return .failure(error)
            }
        }
        let safe = request.method.isSafe
        guard identity.scope >= AdminScope.required(safe: safe) else { return .failure(Self.insufficientScope) }
        guard !safe, identity.method == .session || request.headers["Origin"] != nil else { return .success(identity) }
        if let value = request.headers[Self.csrfHeader], !value.isEmpty { return .success(identity) }
        return .failure(
            APIError(
                status: .forbidden, type: .missingCSRFHeader,
                detail: "A state-changing request from a browser must carry the \(Self.csrfHeader) header."))
    }

    private func liveSession(_ headers: HTTPHeaders) -> AdminIdentity? {
        guard let sessions, let value = AdminSessions.cookieValue(in: headers.values(for: "Cookie")) else {
            return nil
        }
        return sessions.identity(of: value)
    }

    /// The configured token whose secret is `presented` (the operator page's login form). Every token is
    /// compared in full, in constant time.
    /// - Parameter presented: the token as given.
    /// - Returns: the token, or `nil`.
    public func token(matching presented: some Collection<UInt8>) -> AdminToken? {
        Self.firstMatch(presented, in: tokens.current) { $0.secret }
    }

    /// Opens an operator-page session for the configured token whose secret is `presented` (the login
    /// form), keeping the token's name and scope.
    ///
    /// A reload (`replaceTokens`) swaps the tokens and then ends the sessions of the tokens it removed. A
    /// login that matched a token before the swap and opened its session after the reload ended that
    /// token's sessions would leave one session of a removed token alive for its whole lifetime. So the
    /// token is checked again once the session exists: if the check still sees the token, the swap came
    /// after it, and the reload's `close(openedBy:)` comes after the session too and ends it; if not, this
    /// ends the session itself.
    /// - Parameter presented: the token as given.
    /// - Returns: the token and the session's identifier, or `nil` when no token in force matches (or none
    ///   is configured).
    public func openSession(presenting presented: some Collection<UInt8>) -> (token: AdminToken, id: String)? {
        guard let sessions, let token = token(matching: presented) else { return nil }
        let id = sessions.open(name: token.name, scope: token.scope)
        guard let still = self.token(matching: presented), still.name == token.name, still.scope == token.scope else {
            sessions.close(Array(id.utf8))
            return nil
        }
        return (token, id)
    }

    /// The configured tokens' names and scopes (never the secrets), for the start-up line.
    public var tokenSummary: [(name: String, scope: AdminScope)] { tokens.current.map { ($0.name, $0.scope) } }

    /// The first of `candidates` whose secret is `presented`. Every candidate is compared in full
    /// (`constantTimeEquals`) and the loop never stops early, so the time says neither which one matched
    /// nor whether one did.
    /// - Parameters:
    ///   - presented: what the client sent.
    ///   - candidates: the configured secrets' owners.
    ///   - secret: a candidate's secret.
    /// - Returns: the first match, or `nil`.
    static func firstMatch<Candidate>(
        _ presented: some Collection<UInt8>, in candidates: some Sequence<Candidate>,
        secret: (Candidate) -> [UInt8]
    ) -> Candidate? {
        var found: Candidate?
        for candidate in candidates where constantTimeEquals(presented, secret(candidate)) {
            found = found ?? candidate
        }
        return found
    }

    /// Recognises the client from the `Authorization` field lines and its address.
    /// - Parameters:
    ///   - authorization: every `Authorization` field value of the request, in order.
    ///   - remote: the client's address.
    /// - Returns: who it is, or the error to answer with.
    public func authenticate(authorization: [String], remote: HTTPAddress) -> Result<AdminIdentity, APIError> {
        // Read once: a reload meanwhile does not mix two sets in one decision.
        let tokens = tokens.current
        guard !tokens.isEmpty else {
            if remote.isLoopback { return .success(AdminIdentity(name: "loopback", scope: .full, method: .loopback)) }
            return .failure(
                APIError(
                    status: .forbidden, type: .forbidden,
                    detail: "The admin API answers only loopback clients while no admin token is configured."))
        }
        if authorization.isEmpty { return .failure(Self.challenge(error: nil, "Admin credentials are required.")) }
        // RFC 9110 §11.6.2: Authorization is a singleton; two lines cannot be told apart safely.
        guard authorization.count == 1 else {
            return .failure(Self.invalidRequest("The request carries more than one Authorization field."))
        }
        switch Self.bearerCredentials(authorization[0]) {
        case .otherScheme:
            return .failure(Self.challenge(error: nil, "The admin API takes Bearer credentials (RFC 6750)."))
        case .malformed:
            return .failure(Self.invalidRequest("The Bearer credentials are malformed."))
        case .token(let presented):
            if let token = Self.firstMatch(presented, in: tokens, secret: \.secret) {
                return .success(AdminIdentity(name: token.name, scope: token.scope, method: .token))
            }
            return .failure(Self.challenge(error: "invalid_token", "The admin token does not match."))
        }
    }

    /// Compares a presented secret with the expected one in time that depends only on the presented
    /// length: every presented byte is compared (against the expected bytes repeated), the length
    /// difference is folded into the same accumulator, and nothing exits early. Generic so that a test
    /// can watch which bytes are read; callers pass byte arrays.
    /// - Parameters:
    ///   - presented: what the client sent.
    ///   - expected: the configured secret; not empty.
    /// - Returns: whether they are equal.
    public static func constantTimeEquals<Expected: RandomAccessCollection<UInt8>>(
        _ presented: some Collection<UInt8>, _ expected: Expected
    ) -> Bool where Expected.Index == Int {
        guard !expected.isEmpty else { return false }
        var difference = UInt64(truncatingIfNeeded: presented.count ^ expected.count)
        var expectedIndex = expected.startIndex
        for byte in presented {
            difference |= UInt64(byte ^ expected[expectedIndex])
            // A wrap instead of `%` keeps the loop free of divisions whose timing could vary.
            expectedIndex &+= 1
            expectedIndex = expectedIndex == expected.endIndex ? expected.startIndex : expectedIndex
        }
        return difference == 0
    }

    enum Credentials: Equatable {
        case token([UInt8])
        case otherScheme
        case malformed
    }

    /// Reads `Bearer <b64token>` (RFC 6750 §2.1; the scheme is case-insensitive, RFC 9110 §11.1).
    static func bearerCredentials(_ value: String) -> Credentials {
        let bytes = Array(value.utf8)
        let scheme = Array("bearer".utf8)
        guard bytes.count >= scheme.count, zip(bytes, scheme).allSatisfy({ $0.asciiLowercased == $1 }) else {
            return .otherScheme
        }
        var rest = bytes[scheme.count...]
        guard let first = rest.first, first == UInt8(ascii: " ") else {
            // `BearerX ...` is another scheme; `Bearer` alone has no token.
            return rest.isEmpty ? .malformed : .otherScheme
        }
        while rest.first == UInt8(ascii: " ") { rest = rest.dropFirst() }
        guard !rest.isEmpty, rest.allSatisfy(isB64TokenByte) else { return .malformed }
        return .token(Array(rest))
    }

    /// `b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`, checked per byte.
    static func isB64TokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "+"),
            UInt8(ascii: "/"), UInt8(ascii: "="):
            true
        default: false
        }
    }

    /// 403 for a read-only credential on a write (RFC 6750 §3.1 `insufficient_scope`).
    static let insufficientScope = APIError(
        status: .forbidden, type: .insufficientScope,
        detail: "This admin token may read only; purges, deletes and filter changes need a full token.",
        headers: HTTPHeaders([
            ("WWW-Authenticate", "Bearer realm=\"\(realm)\", error=\"insufficient_scope\", scope=\"full\"")
        ]))

    private static func challenge(error: String?, _ detail: String) -> APIError {
        var value = "Bearer realm=\"\(realm)\""
        if let error { value += ", error=\"\(error)\"" }
        return APIError(
            status: .unauthorized, type: .unauthorized, detail: detail,
            headers: HTTPHeaders([("WWW-Authenticate", value)]))
    }

    private static func invalidRequest(_ detail: String) -> APIError {
        APIError(
            status: .badRequest, type: .invalidAuthorization, detail: detail,
            headers: HTTPHeaders([("WWW-Authenticate", "Bearer realm=\"\(realm)\", error=\"invalid_request\"")]))
    }
}
