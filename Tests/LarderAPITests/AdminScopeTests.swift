import HTTPCore
import HTTPServer
import Testing

@testable import LarderAPI

/// Named admin tokens with scopes: who a request is, what its scope allows, sessions that keep the scope of
/// the token that opened them, and the audit event an answer makes.
@Suite struct AdminScopeTests {
    static let loopback = HTTPAddress(ip: "127.0.0.1", port: 5000, isLoopback: true)
    static let remote = HTTPAddress(ip: "203.0.113.9", port: 5000, isLoopback: false)
    static let access = AdminAccess(tokens: [
        AdminToken(name: "viewer", secret: "read-secret", scope: .read),
        AdminToken(name: "ops", secret: "full-secret", scope: .full),
    ])

    static func request(_ method: HTTPMethod, _ headers: [(String, String)] = []) -> HTTPRequest {
        HTTPRequest(method: method, target: "/cache", headers: HTTPHeaders(headers))
    }

    static func context(_ remote: HTTPAddress = remote) -> HTTPRequestContext {
        HTTPRequestContext(remoteAddress: remote, localAddress: loopback, connectionID: 1)
    }

    @Test(arguments: [HTTPMethod.get, .head, .options, .delete, .put, .post, .patch])
    func aReadTokenReadsAndNothingElse(method: HTTPMethod) throws {
        let result = Self.access.authorize(
            request: Self.request(method, [("Authorization", "Bearer read-secret")]), context: Self.context())
        if [.get, .head, .options].contains(method) {
            #expect(try result.get() == AdminIdentity(name: "viewer", scope: .read, method: .token))
        } else {
            guard case .failure(let error) = result else {
                Issue.record("a read token may \(method)")
                return
            }
            #expect(error.status.code == 403)
            #expect(error.type == .insufficientScope)
            #expect(error.headers["WWW-Authenticate"]?.contains(#"error="insufficient_scope""#) == true)
        }
    }

    @Test func aFullTokenDoesEverythingAndIsNamed() throws {
        for method in [HTTPMethod.get, .delete, .put, .post] {
            let result = Self.access.authorize(
                request: Self.request(method, [("Authorization", "Bearer full-secret")]), context: Self.context())
            #expect(try result.get() == AdminIdentity(name: "ops", scope: .full, method: .token))
        }
        #expect(Self.access.token(matching: Array("full-secret".utf8))?.name == "ops")
        #expect(Self.access.token(matching: Array("full-secre".utf8)) == nil)
    }

    @Test func aSessionKeepsTheScopeOfTheTokenThatOpenedIt() throws {
        let sessions = try #require(Self.access.sessions)
        let id = sessions.open(name: "viewer", scope: .read)
        let cookie = ("Cookie", "\(AdminSessions.cookieName)=\(id)")
        let read = Self.access.authorize(request: Self.request(.get, [cookie]), context: Self.context())
        #expect(try read.get() == AdminIdentity(name: "viewer", scope: .read, method: .session))
        let write = Self.access.authorize(
            request: Self.request(.delete, [cookie, ("X-Larder-CSRF", "1")]), context: Self.context())
        guard case .failure(let error) = write else {
            Issue.record("a read session purged")
            return
        }
        #expect(error.type == .insufficientScope)
    }

    @Test func theSingleTokenIsAFullTokenNamedAdminAndLoopbackIsFullWithoutTokens() throws {
        let single = AdminAccess(token: "t0ken")
        let result = single.authorize(
            request: Self.request(.delete, [("Authorization", "Bearer t0ken")]), context: Self.context())
        #expect(try result.get() == AdminIdentity(name: "admin", scope: .full, method: .token))
        let open = AdminAccess(tokens: [])
        let local = open.authorize(request: Self.request(.delete), context: Self.context(Self.loopback))
        #expect(try local.get() == AdminIdentity(name: "loopback", scope: .full, method: .loopback))
    }

    @Test func anAuditEventCountsWhatTheAnswerSays() {
        let identity = AdminIdentity(name: "ops", scope: .full, method: .token)
        let purge = AuditEvent(
            identity: identity, client: Self.remote, method: .delete, target: "/cache?host=example.com",
            response: HTTPResponse(status: .ok, body: .bytes(Array(#"{"purged":12}"#.utf8))))
        #expect(purge.entries == 12)
        #expect(purge.summary == "ops DELETE /cache?host=example.com: 200, 12 entries")
        #expect(purge.metadata["who"].map { "\($0)" } == "ops")
        let delete = AuditEvent(
            identity: identity, client: Self.remote, method: .delete,
            target: "/cache/\(String(repeating: "a", count: 64))",
            response: HTTPResponse(status: .noContent))
        #expect(delete.entries == 1)
        let change = AuditEvent(
            identity: AdminIdentity(name: "loopback", scope: .full, method: .loopback), client: Self.loopback,
            method: .put, target: "/filters/x",
            response: HTTPResponse(status: .ok, body: .bytes(Array(#"{"version":7,"filters":[{},{}]}"#.utf8))))
        #expect(change.who == "127.0.0.1")
        #expect(change.chainVersion == 7)
        #expect(change.filters == 2)
        #expect(change.entries == nil)
    }
}
