import Foundation
import HTTPCore
import Testing

@testable import LarderAPI

/// The signature's exact bytes (checked against `openssl dgst -sha256 -hmac`), base64url, and the signed
/// path's encoding.
@Suite struct URLSignerTests {
    static let key = Array("0123456789abcdef0123".utf8)

    @Test func signatureIsHMACOverURLThenLineFeedThenExp() {
        // printf 'https://example.com/a.png\n1900000000' | openssl dgst -sha256 -hmac 0123456789abcdef0123 -binary
        //     | base64 | tr '+/' '-_' | tr -d '='
        let signer = URLSigner(keys: [Self.key])
        #expect(
            signer.signature(url: "https://example.com/a.png", expires: 1_900_000_000)
                == "biGnaKTtrrgcpQ-GLd-jjlXw3RkgBM5Qi1uZlETKE4Q")
        // printf 'https://example.com/a.png' | openssl dgst -sha256 -hmac 0123456789abcdef0123 -binary | ...
        #expect(signer.signature(url: "https://example.com/a.png") == "ziaCkYEqLI8G_IWbFNpVnLATg_uy4M6zXgCJariS5Rk")
    }

    @Test(arguments: [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
        ("foobar", "Zm9vYmFy"),
    ])
    func base64URLFollowsRFC4648WithoutPadding(input: String, expected: String) {
        #expect(URLSigner.base64URL(Array(input.utf8)) == expected)
    }

    @Test func base64URLUsesDashAndUnderscore() {
        #expect(URLSigner.base64URL([0xFB, 0xFF, 0xBF]) == "-_-_")
    }

    @Test(arguments: [
        "https://example.com/a b+c?x=1&y=2#frag", "http://127.0.0.1:8000/%41?q=%2B", "https://example.com/é/ü?π=3",
    ])
    func signedPathDecodesToTheSignedURL(url: String) throws {
        let signer = URLSigner(keys: [Self.key])
        let path = try #require(signer.signedPath(url: url, expires: 42))
        let query = String(path.dropFirst("/fetch?".count))
        #expect(FetchHandler.urlParameter(in: query) == url)
        #expect(path.hasSuffix("&exp=42&sig=" + signer.signature(url: url, expires: 42)!))
    }

    @Test func aURLWithALineFeedIsNeitherSignedNorVerified() {
        let signer = URLSigner(keys: [Self.key])
        #expect(signer.signature(url: "https://example.com/\n1") == nil)
        // The layout with exp is url LF exp: the same bytes must not verify as a URL without exp.
        let signature = signer.signature(url: "https://example.com/", expires: 1)!
        #expect(
            signer.verifies(
                signature: Array(signature.utf8), url: Array("https://example.com/".utf8), expires: Array("1".utf8)))
        #expect(
            !signer.verifies(signature: Array(signature.utf8), url: Array("https://example.com/\n1".utf8), expires: nil)
        )
    }

    @Test func everyKeyVerifiesAndOnlyTheFirstSigns() {
        let old = Array("old-key-0123456789".utf8)
        let new = Array("new-key-0123456789".utf8)
        let url = Array("https://example.com/a".utf8)
        let byOld = URLSigner(keys: [old]).signature(url: "https://example.com/a")!
        #expect(URLSigner(keys: [new, old]).verifies(signature: Array(byOld.utf8), url: url, expires: nil))
        #expect(!URLSigner(keys: [new]).verifies(signature: Array(byOld.utf8), url: url, expires: nil))
        #expect(URLSigner(keys: [new, old]).signature(url: "https://example.com/a") != byOld)
        #expect(URLSigner(keys: []).signature(url: "https://example.com/a") == nil)
    }
}
