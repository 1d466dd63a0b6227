import Foundation
import HTTPCore
import HTTPServer
import LarderAPI
import Synchronization
import Testing

/// The operator page's sessions: random, expiring, bounded, and read from the `Cookie` field alone.
@Suite struct AdminSessionsTests {
    final class Clock: Sendable {
        private let current = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        var now: Date { current.withLock { $0 } }
        func advance(by seconds: TimeInterval) { current.withLock { $0 += seconds } }
    }

    @Test func aSessionIsValidUntilItsLifetimeEnds() {
        let clock = Clock()
        let sessions = AdminSessions(lifetime: 60, clock: { clock.now })
        let id = sessions.open(name: "admin", scope: .full)
        #expect(id.count == 64 && id.allSatisfy(\.isHexDigit))
        #expect(sessions.identity(of: Array(id.utf8)) != nil)
        clock.advance(by: 59)
        #expect(sessions.identity(of: Array(id.utf8)) != nil)
        clock.advance(by: 1)
        #expect(sessions.identity(of: Array(id.utf8)) == nil)
        #expect(sessions.count == 0)
    }

    @Test func identifiersAreDistinctAndOnlyTheirOwnBytesMatch() {
        let sessions = AdminSessions()
        let ids = (0..<50).map { _ in sessions.open(name: "admin", scope: .full) }
        #expect(Set(ids).count == 50)
        var altered = Array(ids[0].utf8)
        altered[63] = altered[63] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
        #expect(sessions.identity(of: altered) == nil)
        #expect(sessions.identity(of: Array(ids[0].utf8.dropLast())) == nil)
        #expect(sessions.identity(of: []) == nil)
    }

    @Test func beyondCapacityTheOldestSessionIsDropped() {
        let sessions = AdminSessions(capacity: 3)
        let ids = (0..<4).map { _ in sessions.open(name: "admin", scope: .full) }
        #expect(sessions.count == 3)
        #expect(sessions.identity(of: Array(ids[0].utf8)) == nil)
        #expect(ids.dropFirst().allSatisfy { sessions.identity(of: Array($0.utf8)) != nil })
    }

    @Test func closingASessionEndsOnlyThatOne() {
        let sessions = AdminSessions()
        let first = sessions.open(name: "admin", scope: .full)
        let second = sessions.open(name: "admin", scope: .full)
        sessions.close(Array(first.utf8))
        #expect(sessions.identity(of: Array(first.utf8)) == nil)
        #expect(sessions.identity(of: Array(second.utf8)) != nil)
    }

    @Test(
        arguments: [
            (["larder_session=abc"], "abc"), (["a=1; larder_session=abc; b=2"], "abc"),
            (["a=1", "larder_session=x"], "x"),
            (["larder_session="], ""), (["xlarder_session=abc"], nil), (["larder_sessionx=abc"], nil), ([], nil),
        ] as [([String], String?)])
    func theCookieIsFoundByItsExactName(fields: [String], value: String?) {
        #expect(AdminSessions.cookieValue(in: fields).map { String(decoding: $0, as: UTF8.self) } == value)
    }

    /// The login matches the token, then opens the session; a reload that removes the token between the
    /// two (its swap and its `close(openedBy:)` both before the session exists) must not leave the session
    /// alive. The reload runs from the sessions' clock, which `open` reads before it adds the session.
    @Test func aReloadBetweenTheTokenCheckAndTheSessionLeavesNoSessionOfTheRemovedToken() {
        let reload = Mutex<(@Sendable () -> Void)?>(nil)
        let sessions = AdminSessions(clock: {
            if let run = reload.withLock({ pending in
                defer { pending = nil }
                return pending
            }) {
                run()
            }
            return Date(timeIntervalSince1970: 1_800_000_000)
        })
        let access = AdminAccess(
            tokens: [AdminToken(name: "old", secret: "old-secret", scope: .full)], sessions: sessions, reloadable: true)
        reload.withLock {
            $0 = { _ = access.replaceTokens([AdminToken(name: "new", secret: "new-secret", scope: .full)]) }
        }
        #expect(access.openSession(presenting: Array("old-secret".utf8)) == nil)
        #expect(sessions.count == 0)
        // With no reload under way, the new token logs in.
        let opened = access.openSession(presenting: Array("new-secret".utf8))
        #expect(opened?.token.name == "new")
        #expect(sessions.count == 1)
    }

    @Test func withoutATokenThereAreNoSessionsAndNoTokenIsAccepted() {
        let access = AdminAccess(token: nil)
        #expect(access.sessions == nil)
        #expect(access.token(matching: Array("".utf8)) == nil)
        #expect(access.sessions?.identity(of: Array("00".utf8)) == nil)
    }

    @Test func anOriginOffLoopbackWithAValidCookieIsAllowedAndStillNeedsTheHeaderToChangeState() {
        let access = AdminAccess(token: "t")
        let id = access.sessions?.open(name: "admin", scope: .full) ?? ""
        let remote = HTTPRequestContext(
            remoteAddress: HTTPAddress(ip: "192.0.2.7", port: 1, isLoopback: false),
            localAddress: HTTPAddress(ip: "192.0.2.1", port: 8080, isLoopback: false), connectionID: 1)
        func request(_ method: HTTPMethod, _ headers: [(String, String)]) -> HTTPRequest {
            HTTPRequest(method: method, target: "/cache", headers: HTTPHeaders(headers))
        }
        let cookie = ("Cookie", "larder_session=\(id)")
        #expect(access.decide(request: request(.get, [cookie]), context: remote) == .allow)
        guard case .deny(let error) = access.decide(request: request(.delete, [cookie]), context: remote) else {
            Issue.record("a DELETE with the cookie and no header was allowed")
            return
        }
        #expect(error.status == .forbidden)
        #expect(access.decide(request: request(.delete, [cookie, ("X-Larder-CSRF", "1")]), context: remote) == .allow)
        // Bearer credentials from curl need no header; from a browser page (Origin) they do.
        let bearer = ("Authorization", "Bearer t")
        #expect(access.decide(request: request(.delete, [bearer]), context: remote) == .allow)
        #expect(
            access.decide(request: request(.delete, [bearer, ("Origin", "https://x.example")]), context: remote)
                != .allow)
    }
}
