public import FoundationEssentials
import Synchronization

/// The operator page's login sessions: random identifiers handed out in a cookie after the admin token
/// was presented once, so that a browser, which cannot add `Authorization` to a navigation or an
/// `<img>`, can use the admin routes.
///
/// Sessions live in memory only: a restart logs every browser out, and so does changing the token.
/// Each lasts `lifetime` from its login; at most `capacity` are kept, the oldest dropped first, so a
/// client that logs in in a loop cannot grow the set.
public final class AdminSessions: Sendable {
    /// The cookie's name.
    public static let cookieName = "larder_session"

    private struct Session {
        let id: [UInt8]
        let expires: Date
        /// Who logged in: the token's name and scope.
        let identity: AdminIdentity
    }

    /// How long a session lasts from its login.
    public let lifetime: TimeInterval
    /// The most sessions kept at once.
    public let capacity: Int
    private let clock: @Sendable () -> Date
    // Oldest first: a new session is appended, so dropping from the front drops the oldest.
    private let sessions = Mutex<[Session]>([])

    /// Creates an empty set.
    /// - Parameters:
    ///   - lifetime: how long a session lasts (default 12 hours: a working day, not a week).
    ///   - capacity: the most sessions kept at once.
    ///   - clock: the time source (injected so tests never sleep).
    public init(
        lifetime: TimeInterval = 12 * 3600, capacity: Int = 64, clock: @escaping @Sendable () -> Date = Date.init
    ) {
        self.lifetime = lifetime
        self.capacity = max(1, capacity)
        self.clock = clock
    }

    /// Starts a session for the token that was presented.
    /// - Parameters:
    ///   - name: the token's name (audit lines show it).
    ///   - scope: the token's scope, which the session keeps.
    /// - Returns: its identifier: 32 random bytes from the system's CSPRNG (`getrandom(2)` through
    ///   `SystemRandomNumberGenerator`), as 64 hex digits.
    public func open(name: String, scope: AdminScope) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let id = bytes.map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
        let session = Session(
            id: Array(id.utf8), expires: clock().addingTimeInterval(lifetime),
            identity: AdminIdentity(name: name, scope: scope, method: .session))
        sessions.withLock { sessions in
            let now = clock()
            sessions.removeAll { $0.expires <= now }
            if sessions.count >= capacity { sessions.removeFirst(sessions.count - capacity + 1) }
            sessions.append(session)
        }
        return id
    }

    /// Who a live session belongs to. Every live session is compared in full, in time that does not
    /// depend on where a guess differs (`AdminAccess.constantTimeEquals`).
    /// - Parameter id: the cookie's value.
    /// - Returns: the identity of the token that opened it, or `nil`.
    public func identity(of id: some Collection<UInt8>) -> AdminIdentity? {
        let now = clock()
        return sessions.withLock { sessions in
            AdminAccess.firstMatch(id, in: sessions.lazy.filter { $0.expires > now }) { $0.id }?.identity
        }
    }

    /// Ends a session (logout); an unknown identifier is ignored.
    /// - Parameter id: the cookie's value.
    public func close(_ id: some Collection<UInt8>) {
        let presented = Array(id)
        sessions.withLock { sessions in
            sessions.removeAll { AdminAccess.constantTimeEquals(presented, $0.id) }
        }
    }

    /// Ends every session opened with one of the named tokens (a reload removed or changed them).
    /// - Parameter names: the tokens' names.
    /// - Returns: how many live sessions ended.
    @discardableResult
    public func close(openedBy names: Set<String>) -> Int {
        guard !names.isEmpty else { return 0 }
        let now = clock()
        return sessions.withLock { sessions in
            let live = sessions.count { $0.expires > now && names.contains($0.identity.name) }
            sessions.removeAll { names.contains($0.identity.name) }
            return live
        }
    }

    /// How many sessions are live (for tests).
    public var count: Int {
        let now = clock()
        return sessions.withLock { sessions in sessions.count { $0.expires > now } }
    }

    /// The session cookie's value among a request's `Cookie` fields (RFC 6265 §5.4: `name=value` pairs
    /// separated by `; `), or `nil`.
    /// - Parameter cookies: every `Cookie` field value of the request.
    /// - Returns: the value's bytes.
    public static func cookieValue(in cookies: [String]) -> ArraySlice<UInt8>? {
        let name = Array(cookieName.utf8) + [UInt8(ascii: "=")]
        for field in cookies {
            for pair in field.utf8.split(separator: UInt8(ascii: ";")) {
                var pair = pair[...]
                while pair.first == UInt8(ascii: " ") { pair = pair.dropFirst() }
                if pair.starts(with: name) { return ArraySlice(pair.dropFirst(name.count)) }
            }
        }
        return nil
    }
}
