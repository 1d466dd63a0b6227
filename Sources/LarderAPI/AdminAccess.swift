public import HTTPCore
public import HTTPServer

/// Who may use the admin endpoints (`/cache`, `/filters` and `/fetches`).
///
/// With a token configured, every request must carry `Authorization: Bearer <token>` (RFC 6750 §2.1),
/// from loopback too. Without one, only loopback clients are served. Failures follow RFC 6750 §3.1:
/// no credentials (or another scheme) is 401 with a bare `WWW-Authenticate: Bearer` challenge; a wrong
/// token is also 401, with `error="invalid_token"` (403 is reserved for `insufficient_scope`, which a
/// single all-powerful token never has); a malformed Bearer field is 400 `invalid_request`. A client off
/// loopback while no token is configured is 403: no credential could help it.
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

    private let token: [UInt8]?

    /// Creates the policy.
    /// - Parameter token: the admin token; `nil` or empty means loopback clients only.
    public init(token: String?) {
        if let token, !token.isEmpty { self.token = Array(token.utf8) } else { self.token = nil }
    }

    /// Whether a token is configured.
    public var requiresToken: Bool { token != nil }

    /// Decides one request.
    /// - Parameters:
    ///   - request: the request; only its `Authorization` fields are read.
    ///   - context: where it came from.
    /// - Returns: `.allow` or the error to answer with.
    public func decide(request: HTTPRequest, context: HTTPRequestContext) -> Decision {
        decide(authorization: request.headers.values(for: "Authorization"), remote: context.remoteAddress)
    }

    /// Decides from the `Authorization` field lines and the client address alone.
    /// - Parameters:
    ///   - authorization: every `Authorization` field value of the request, in order.
    ///   - remote: the client's address.
    /// - Returns: `.allow` or the error to answer with.
    public func decide(authorization: [String], remote: HTTPAddress) -> Decision {
        guard let token else {
            if remote.isLoopback { return .allow }
            return .deny(
                APIError(
                    status: .forbidden, type: APIProblemType.forbidden,
                    detail: "The admin API answers only loopback clients while no admin token is configured."))
        }
        if authorization.isEmpty { return .deny(Self.challenge(error: nil, "Admin credentials are required.")) }
        // RFC 9110 §11.6.2: Authorization is a singleton; two lines cannot be told apart safely.
        guard authorization.count == 1 else {
            return .deny(Self.invalidRequest("The request carries more than one Authorization field."))
        }
        switch Self.bearerCredentials(authorization[0]) {
        case .otherScheme:
            return .deny(Self.challenge(error: nil, "The admin API takes Bearer credentials (RFC 6750)."))
        case .malformed:
            return .deny(Self.invalidRequest("The Bearer credentials are malformed."))
        case .token(let presented):
            if Self.constantTimeEquals(presented, token) { return .allow }
            return .deny(Self.challenge(error: "invalid_token", "The admin token does not match."))
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
    private static func isB64TokenByte(_ byte: UInt8) -> Bool {
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

    private static func challenge(error: String?, _ detail: String) -> APIError {
        var value = "Bearer realm=\"\(realm)\""
        if let error { value += ", error=\"\(error)\"" }
        return APIError(
            status: .unauthorized, type: APIProblemType.unauthorized, detail: detail,
            headers: HTTPHeaders([("WWW-Authenticate", value)]))
    }

    private static func invalidRequest(_ detail: String) -> APIError {
        APIError(
            status: .badRequest, type: APIProblemType.invalidAuthorization, detail: detail,
            headers: HTTPHeaders([("WWW-Authenticate", "Bearer realm=\"\(realm)\", error=\"invalid_request\"")]))
    }
}
