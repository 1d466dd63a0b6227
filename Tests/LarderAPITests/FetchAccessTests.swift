import Foundation
import HTTPCore
import Testing

@testable import LarderAPI

/// `FetchAccess`'s rule without sockets: which credentials admit which methods, and each refusal's reason
/// and problem type.
@Suite struct FetchAccessTests {
    static let key = Array("fetch-access-key-0123".utf8)
    static let url = "https://example.com/a.png"
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func access(signing: Bool = true, tokens: [FetchAccess.Token] = []) -> FetchAccess {
        FetchAccess(signingKeys: signing ? [key] : [], tokens: tokens, clock: { now })
    }

    static func query(url: String = url, expires: Int64? = nil, signer: URLSigner = URLSigner(keys: [key])) -> String {
        String(signer.signedPath(url: url, expires: expires)!.dropFirst("/fetch?".count))
    }

    @Test func withNothingConfiguredItIsOff() {
        #expect(!FetchAccess().isEnabled)
        #expect(Self.access(signing: true).isEnabled)
        #expect(FetchAccess(tokens: [.init(name: "a", secret: "s")]).isEnabled)
        #expect(!FetchAccess(tokens: [.init(name: "a", secret: "")]).isEnabled)
    }

    @Test func aValidSignatureAdmitsGETAndHEADOnly() {
        let access = Self.access()
        let query = Self.query()
        #expect(access.decide(method: .get, query: query, headers: HTTPHeaders()) == .signature)
        #expect(access.decide(method: .head, query: query, headers: HTTPHeaders()) == .signature)
        for method in [HTTPMethod.post, .put, .delete, .patch] {
            #expect(access.decide(method: method, query: query, headers: HTTPHeaders()).reason == .signatureMethod)
        }
        #expect(access.metrics.refusalCount(.signatureMethod) == 4)
    }

    @Test func aValidTokenAdmitsAnyMethod() {
        let access = Self.access(tokens: [.init(name: "billing", secret: "s3cret-billing")])
        for method in [HTTPMethod.get, .head, .post, .delete] {
            #expect(
                access.decide(
                    method: method, query: "url=x", headers: HTTPHeaders([("Larder-Token", "s3cret-billing")]))
                    == .token("billing"))
        }
    }

    @Test func eachSignatureFailureHasItsReason() {
        let access = Self.access()
        let valid = Self.query(expires: 1_800_000_100)
        let cases: [(String?, FetchRefusal.Reason)] = [
            (nil, .credentialsMissing), ("url=" + Self.url, .credentialsMissing),
            (Self.query(signer: URLSigner(keys: [Array("another-key-0123456".utf8)])), .signatureMismatch),
            (valid.replacingOccurrences(of: "a.png", with: "b.png"), .signatureMismatch),
            (valid.replacingOccurrences(of: "exp=1800000100", with: "exp=1800000200"), .signatureMismatch),
            (valid.replacingOccurrences(of: "&exp=1800000100", with: ""), .signatureMismatch),
            (Self.query(expires: 1_799_999_999), .signatureExpired),
            (valid + "&sig=x", .signatureMalformed), (valid + "&exp=1", .signatureMalformed),
            (valid.replacingOccurrences(of: "exp=1800000100", with: "exp=-5"), .signatureMalformed),
            ("sig=abc", .signatureMalformed),
        ]
        for (query, reason) in cases {
            let decision = access.decide(method: .get, query: query, headers: HTTPHeaders())
            #expect(decision.reason == reason, "\(query ?? "nil")")
        }
        #expect(access.decide(method: .get, query: valid, headers: HTTPHeaders()) == .signature)
        // Valid through the second it names.
        #expect(
            access.decide(method: .get, query: Self.query(expires: 1_800_000_000), headers: HTTPHeaders()) == .signature
        )
        #expect(access.metrics.refusalCount(.signatureMismatch) == 4)
    }

    @Test func eitherCredentialSuffices() {
        let access = Self.access(tokens: [.init(name: "billing", secret: "s3cret-billing")])
        let wrongToken = HTTPHeaders([("Larder-Token", "nope")])
        #expect(access.decide(method: .get, query: Self.query(), headers: wrongToken) == .signature)
        let refused = access.decide(method: .get, query: "url=x", headers: wrongToken)
        #expect(refused.reason == .tokenMismatch)
        #expect(refused.problemType(signing: true) == .tokenInvalid)
        let unsigned = access.decide(method: .get, query: "url=x", headers: HTTPHeaders())
        #expect(unsigned.problemType(signing: true) == .signatureInvalid)
        // Two token lines are never guessed between.
        let twice = HTTPHeaders([("Larder-Token", "s3cret-billing"), ("Larder-Token", "s3cret-billing")])
        #expect(access.decide(method: .get, query: "url=x", headers: twice).reason == .tokenMismatch)
    }

    @Test func tokensAloneAnswerTokenInvalid() {
        let access = Self.access(signing: false, tokens: [.init(name: "billing", secret: "s3cret-billing")])
        let refused = access.decide(method: .get, query: Self.query(), headers: HTTPHeaders())
        #expect(refused.reason == .credentialsMissing)
        #expect(refused.problemType(signing: false) == .tokenInvalid)
    }

    @Test func detailsNeverHoldAKeyATokenOrTheExpectedSignature() {
        let access = Self.access(tokens: [.init(name: "billing", secret: "s3cret-billing")])
        let expected = URLSigner(keys: [Self.key]).signature(url: Self.url)!
        for query in ["url=\(Self.url)&sig=AAAA", "url=\(Self.url)", "sig=\(expected)&sig=x"] {
            guard case .refused(let refusal) = access.decide(method: .get, query: query, headers: HTTPHeaders()) else {
                Issue.record("admitted \(query)")
                continue
            }
            for secret in [String(decoding: Self.key, as: UTF8.self), "s3cret-billing", expected] {
                #expect(!refusal.detail.contains(secret))
            }
        }
    }
}

extension FetchAccess.Decision {
    var reason: FetchRefusal.Reason? {
        if case .refused(let refusal) = self { return refusal.reason }
        return nil
    }

    func problemType(signing: Bool) -> ProblemType? {
        if case .refused(let refusal) = self { return refusal.problemType(signing: signing) }
        return nil
    }
}
