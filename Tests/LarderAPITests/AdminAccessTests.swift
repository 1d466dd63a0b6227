import HTTPCore
import HTTPServer
import TestSupport
import Testing

@testable import LarderAPI

struct AdminAccessTests {
    static let loopback = HTTPAddress(ip: "127.0.0.1", port: 50000, isLoopback: true)
    static let remote = HTTPAddress(ip: "192.0.2.7", port: 50000, isLoopback: false)

    struct Comparison: Sendable, CustomTestStringConvertible {
        let presented: String
        let expected: String
        let equal: Bool
        var testDescription: String { "\(presented.debugDescription) vs \(expected.debugDescription)" }
    }

    @Test(arguments: [
        Comparison(presented: "s3cret", expected: "s3cret", equal: true),
        Comparison(presented: "s3creT", expected: "s3cret", equal: false),
        Comparison(presented: "X3cret", expected: "s3cret", equal: false),
        Comparison(presented: "s3cre", expected: "s3cret", equal: false),
        Comparison(presented: "s3crets3cret", expected: "s3cret", equal: false),
        Comparison(presented: "s3cret\u{0}", expected: "s3cret", equal: false),
        Comparison(presented: "", expected: "s3cret", equal: false),
        Comparison(presented: "", expected: "", equal: false),
        Comparison(presented: "a", expected: "a", equal: true),
        Comparison(
            presented: String(repeating: "z", count: 300), expected: String(repeating: "z", count: 300), equal: true),
        Comparison(
            presented: String(repeating: "z", count: 299) + "y", expected: String(repeating: "z", count: 300),
            equal: false),
    ])
    func constantTimeComparisonAgreesWithEquality(_ row: Comparison) {
        #expect(AdminAccess.constantTimeEquals(Array(row.presented.utf8), Array(row.expected.utf8)) == row.equal)
    }

    /// Bytes that count every read of an element, to see what the comparison looks at.
    final class ReadCounter: @unchecked Sendable {
        // Used by one test at a time, on its own task; no lock needed.
        var reads: [Int] = []
    }

    struct CountedBytes: RandomAccessCollection {
        let bytes: [UInt8]
        let counter: ReadCounter
        var startIndex: Int { 0 }
        var endIndex: Int { bytes.count }
        subscript(position: Int) -> UInt8 {
            counter.reads.append(position)
            return bytes[position]
        }
    }

    /// Which expected bytes one comparison read, in order.
    static func reads(presented: [UInt8], expected: [UInt8]) -> (equal: Bool, reads: [Int]) {
        let counter = ReadCounter()
        let equal = AdminAccess.constantTimeEquals(presented, CountedBytes(bytes: expected, counter: counter))
        return (equal, counter.reads)
    }

    @Test(arguments: [1, 2, 16, 64])
    func constantTimeComparisonReadsEveryByteWhereverTheMismatchIs(length: Int) {
        let expected = (0..<length).map { UInt8(truncatingIfNeeded: 0x41 + $0 % 26) }
        let equal = Self.reads(presented: expected, expected: expected)
        #expect(equal.equal)
        #expect(equal.reads == Array(0..<length))
        // A mismatch at any position, first or last: the same reads, in the same order, as a match.
        for position in 0..<length {
            var presented = expected
            presented[position] ^= 0x20
            let result = Self.reads(presented: presented, expected: expected)
            #expect(!result.equal, "mismatch at \(position)")
            #expect(result.reads == equal.reads, "mismatch at \(position) changed what was read")
        }
    }

    @Test(arguments: [0, 1, 5, 15, 17, 40])
    func constantTimeComparisonOfADifferentLengthReadsOnePerPresentedByte(presentedLength: Int) {
        let expected = Array("0123456789abcdef".utf8)
        let presented = (0..<presentedLength).map { expected[$0 % expected.count] }
        let result = Self.reads(presented: presented, expected: expected)
        #expect(!result.equal)
        // The expected bytes are walked cyclically, one read per presented byte: no early exit on length.
        #expect(result.reads == (0..<presentedLength).map { $0 % expected.count })
    }

    @Test func withoutATokenLoopbackIsServedAndOthersAreForbidden() {
        let access = AdminAccess(token: nil)
        #expect(decision(access, authorization: [], remote: Self.loopback) == .allow)
        guard case .deny(let error) = decision(access, authorization: ["Bearer anything"], remote: Self.remote) else {
            Issue.record("a remote client was let in without a token configured")
            return
        }
        #expect(error.status.code == 403)
        #expect(error.type == .forbidden)
    }

    @Test func anEmptyTokenMeansLoopbackOnly() {
        let access = AdminAccess(token: "")
        #expect(!access.requiresToken)
        #expect(decision(access, authorization: [], remote: Self.remote) != .allow)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let authorization: [String]
        let status: Int?
        let challengeError: String?
        var testDescription: String { "\(authorization) → \(status.map(String.init) ?? "allow")" }
    }

    @Test(arguments: [
        Case(authorization: ["Bearer right-token"], status: nil, challengeError: nil),
        Case(authorization: ["bearer right-token"], status: nil, challengeError: nil),
        Case(authorization: ["BEARER   right-token"], status: nil, challengeError: nil),
        Case(authorization: [], status: 401, challengeError: nil),
        Case(authorization: ["Basic cmlnaHQtdG9rZW4="], status: 401, challengeError: nil),
        Case(authorization: ["Bearerright-token"], status: 401, challengeError: nil),
        Case(authorization: ["Bearer wrong-token"], status: 401, challengeError: "invalid_token"),
        Case(authorization: ["Bearer right-toke"], status: 401, challengeError: "invalid_token"),
        Case(authorization: ["Bearer right-token-and-more"], status: 401, challengeError: "invalid_token"),
        Case(authorization: ["Bearer"], status: 400, challengeError: "invalid_request"),
        Case(authorization: ["Bearer right token"], status: 400, challengeError: "invalid_request"),
        Case(
            authorization: ["Bearer right-token", "Bearer right-token"], status: 400, challengeError: "invalid_request"),
    ])
    func withATokenOnlyTheRightBearerCredentialsPass(_ row: Case) {
        let access = AdminAccess(token: "right-token")
        for remote in [Self.loopback, Self.remote] {
            let decision = decision(access, authorization: row.authorization, remote: remote)
            guard let status = row.status else {
                #expect(decision == .allow)
                continue
            }
            guard case .deny(let error) = decision else {
                Issue.record("\(row.authorization) was allowed")
                continue
            }
            #expect(error.status.code == status)
            let challenge = error.headers["WWW-Authenticate"]
            #expect(challenge?.hasPrefix("Bearer realm=") == true)
            if let expected = row.challengeError {
                #expect(challenge?.contains("error=\"\(expected)\"") == true)
            } else {
                #expect(challenge?.contains("error=") == false)
            }
        }
    }

    @Test(
        arguments: [
            (nil, "Bearer t0k", 200), ("t0k", nil, 401), ("t0k", "Bearer nope", 401), ("t0k", "Bearer t0k", 200),
        ]
            as [(String?, String?, Int)])
    func theGuardStandsInFrontOfTheCacheRoutes(token: String?, authorization: String?, status: Int) async throws {
        try await withHarness(token: token) { harness in
            let response = try harness.request(
                "GET", "/cache", headers: authorization.map { [("Authorization", $0)] } ?? [])
            #expect(response.status == status)
            if status == 401 {
                #expect(response.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
                #expect(response.header("Content-Type") == "application/problem+json")
            }
        }
    }
}

/// `.allow` or the refusal, from the `Authorization` lines and the address alone (what a read asks).
private func decision(_ access: AdminAccess, authorization: [String], remote: HTTPAddress) -> AdminAccess.Decision {
    switch access.authenticate(authorization: authorization, remote: remote) {
    case .success: .allow
    case .failure(let error): .deny(error)
    }
}
