import CacheCore
import Foundation
import HTTPCore
import TestSupport
import Testing

@testable import LarderAPI

/// Signed URLs and caller tokens on a real `/fetch` over sockets, a SQLite store and the stub origin:
/// each refusal never reaches the origin; an admitted request is cached as any other, and neither `sig`,
/// `exp` nor `Larder-Token` reaches the origin or the key.
@Suite struct FetchAccessIntegrationTests {
    static let key = Array("integration-key-0123".utf8)
    static let oldKey = Array("integration-old-key-0123".utf8)
    static let token = FetchAccess.Token(name: "billing", secret: "s3cret-billing-token")

    static func access(keys: [[UInt8]] = [key], tokens: [FetchAccess.Token] = [token]) -> FetchAccess {
        FetchAccess(signingKeys: keys, tokens: tokens, clock: { CacheCoreFixtures.epoch })
    }

    static func signedPath(_ harness: FetchTestHarness, _ path: String, key: [UInt8] = key, expires: Int64? = nil)
        -> String
    {
        URLSigner(keys: [key]).signedPath(url: harness.origin.url(path), expires: expires)!
    }

    @Test func aSignedURLIsFetchedCachedAndNeitherSigNorExpReachesTheOrigin() async throws {
        try await withFetchHarness(fetchAccess: Self.access()) { harness in
            harness.origin.respond(to: "/a", with: .ok("a").header("Cache-Control", "max-age=60"))
            let path = Self.signedPath(
                harness, "/a", expires: Int64(CacheCoreFixtures.epoch.timeIntervalSince1970) + 60)
            let miss = try harness.request("GET", path)
            #expect(miss.status == 200)
            #expect(miss.header("X-Cache") == "MISS")
            #expect(miss.header("X-Cache-Key") == harness.key("/a"), "sig and exp are not part of the key")
            #expect(harness.origin.lastRequest?.target == "/a")
            #expect(await harness.settle())
            let hit = try harness.request("HEAD", path)
            #expect(hit.header("X-Cache") == "HIT")
            #expect(harness.origin.requestCount == 1)
        }
    }

    @Test(arguments: ["missing", "wrong key", "altered URL", "expired", "old key after rotation", "sig twice"])
    func eachSignatureFailureIs403AndFetchesNothing(failure: String) async throws {
        try await withFetchHarness(fetchAccess: Self.access(tokens: [])) { harness in
            harness.origin.respond(to: "/a", with: .ok("a"))
            harness.origin.respond(to: "/b", with: .ok("b"))
            let path: String
            switch failure {
            case "missing": path = harness.fetchPath("/a")
            case "wrong key": path = Self.signedPath(harness, "/a", key: Array("some-other-key-0123".utf8))
            case "altered URL":
                path = Self.signedPath(harness, "/a").replacingOccurrences(of: "%2Fa", with: "%2Fb")
                    .replacingOccurrences(of: "/a&", with: "/b&")
            case "expired":
                path = Self.signedPath(harness, "/a", expires: Int64(CacheCoreFixtures.epoch.timeIntervalSince1970) - 1)
            case "old key after rotation": path = Self.signedPath(harness, "/a", key: Self.oldKey)
            default: path = Self.signedPath(harness, "/a") + "&sig=x"
            }
            let response = try harness.request("GET", path)
            #expect(response.status == 403)
            #expect(response.header("Content-Type") == "application/problem+json")
            #expect(
                response.text.contains(#""type":"https://larder.dev/problems/signature-invalid""#), "\(response.text)")
            #expect(!response.text.contains(String(decoding: Self.key, as: UTF8.self)))
            #expect(harness.origin.requestCount == 0)
        }
    }

    @Test func theOldKeyVerifiesWhileItIsStillConfigured() async throws {
        try await withFetchHarness(fetchAccess: Self.access(keys: [Self.key, Self.oldKey])) { harness in
            harness.origin.respond(to: "/a", with: .ok("a"))
            let byOld = try harness.request("GET", Self.signedPath(harness, "/a", key: Self.oldKey))
            let byNew = try harness.request("GET", Self.signedPath(harness, "/a", key: Self.key))
            #expect(byOld.status == 200)
            #expect(byNew.status == 200)
        }
    }

    @Test func aTokenedRequestIsCachedAndTheTokenNeverReachesTheOrigin() async throws {
        try await withFetchHarness(fetchAccess: Self.access()) { harness in
            harness.origin.respond(to: "/t", with: .ok("t").header("Cache-Control", "max-age=60"))
            let tokened = [("Larder-Token", "s3cret-billing-token")]
            let miss = try harness.fetch("/t", headers: tokened)
            #expect(miss.status == 200)
            #expect(miss.header("Cache-Status") == "Larder; fwd=uri-miss; fwd-status=200; stored")
            let seen = try #require(harness.origin.lastRequest)
            #expect(!seen.headers.contains("Larder-Token"))
            #expect(await harness.settle())
            let hit = try harness.fetch("/t", headers: tokened)
            #expect(hit.header("X-Cache") == "HIT")
            let refused = try harness.fetch("/t", headers: [("Larder-Token", "not-the-token")])
            #expect(refused.status == 403)
            #expect(refused.text.contains(#""type":"https://larder.dev/problems/token-invalid""#))
            #expect(!refused.text.contains("s3cret-billing-token"))
            #expect(harness.origin.requestCount == 1)
        }
    }

    @Test func theCallersOwnAuthorizationStillReachesTheOrigin() async throws {
        try await withFetchHarness(fetchAccess: Self.access()) { harness in
            harness.origin.respond(to: "/p", with: .ok("p"))
            let response = try harness.fetch(
                "/p",
                headers: [("Larder-Token", "s3cret-billing-token"), ("Authorization", "Bearer origin-credential")])
            #expect(response.status == 200)
            let seen = try #require(harness.origin.lastRequest)
            #expect(seen.headers["Authorization"] == "Bearer origin-credential")
            #expect(!seen.headers.contains("Larder-Token"))
        }
    }

    @Test func withAccessOffATokenFieldIsStillNotForwarded() async throws {
        try await withFetchHarness { harness in
            harness.origin.respond(to: "/o", with: .ok("o"))
            let response = try harness.fetch("/o", headers: [("Larder-Token", "whatever")])
            #expect(response.status == 200)
            #expect(harness.origin.lastRequest?.headers.contains("Larder-Token") == false)
        }
    }
}
