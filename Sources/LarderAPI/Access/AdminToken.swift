/// What an admin credential may do.
public enum AdminScope: String, Sendable, Comparable, CaseIterable {
    /// Lists, metadata, bodies, explain, in-flight fetches, the chain, the operator page: GET and HEAD.
    case read
    /// Everything: purges, deletes and filter changes besides.
    case full

    /// The scope a request with `method` needs: `read` for GET, HEAD and OPTIONS, `full` for any other.
    /// - Parameter safe: whether the method is safe (RFC 9110 §9.2.1).
    /// - Returns: the scope.
    public static func required(safe: Bool) -> AdminScope { safe ? .read : .full }

    public static func < (lhs: AdminScope, rhs: AdminScope) -> Bool { lhs == .read && rhs == .full }
}

/// A named admin token (`--admin-read-token`, `--admin-full-token`, `--admin-token`).
public struct AdminToken: Sendable {
    /// The name audit lines use (never the secret).
    public let name: String
    /// The secret's bytes.
    public let secret: [UInt8]
    /// What it may do.
    public let scope: AdminScope

    /// Creates a token.
    /// - Parameters:
    ///   - name: its name.
    ///   - secret: its secret; an empty one is ignored by `AdminAccess`.
    ///   - scope: what it may do.
    public init(name: String, secret: String, scope: AdminScope) {
        self.name = name
        self.secret = Array(secret.utf8)
        self.scope = scope
    }
}

/// Who an admin request was made by, once its credentials were checked.
public struct AdminIdentity: Sendable, Equatable {
    /// How it was recognised.
    public enum Method: String, Sendable {
        /// `Authorization: Bearer` with a configured token.
        case token
        /// The operator page's session cookie, opened with a token.
        case session
        /// A loopback client while no token is configured.
        case loopback
    }

    /// The token's name; `loopback` for a loopback client.
    public let name: String
    /// What it may do.
    public let scope: AdminScope
    /// How it was recognised.
    public let method: Method
}
