import CacheCore
import HTTPCore

/// Signs and checks `/fetch` URLs (`--url-signing-key`).
///
/// The signature is `sig=` base64url without padding (RFC 4648 §5) of HMAC-SHA256 (RFC 2104) under the
/// key, over exactly these bytes:
///
///     url                      without exp=
///     url 0x0A exp             with exp=
///
/// where `url` is the `url` parameter's value after form decoding (percent escapes, `+` as a space), as
/// UTF-8, the same text `/fetch` canonicalises, and `exp` the `exp` parameter's decimal digits as sent.
/// A URL that holds a line feed is refused before any MAC is computed, so the two layouts cannot be
/// confused. `sig` and `exp` are parameters of `/fetch`, not of the URL: they are never sent to the
/// origin and never part of the cache key.
///
/// Several keys may be configured: the first signs, every one verifies (rotation: add the new key in
/// front, re-sign, then drop the old one). Checks compare the whole signature in constant time.
public struct URLSigner: Sendable {
    private let keys: [HMACSHA256]

    /// Prepares the keys.
    /// - Parameter keys: the secrets, the signing one first; none means nothing verifies.
    public init(keys: [[UInt8]]) {
        self.keys = keys.map { HMACSHA256(key: $0) }
    }

    /// Whether there is a key to verify with.
    public var isEmpty: Bool { keys.isEmpty }

    /// How many keys verify.
    public var keyCount: Int { keys.count }

    /// The signature of a URL with the first key.
    /// - Parameters:
    ///   - url: the URL exactly as the `url` parameter will carry it once decoded.
    ///   - expires: the `exp` parameter's value (Unix seconds), if any.
    /// - Returns: the `sig` value; `nil` without a key or for a URL holding a line feed.
    public func signature(url: String, expires: Int64? = nil) -> String? {
        guard let key = keys.first, !url.utf8.contains(0x0A) else { return nil }
        return Self.base64URL(Self.mac(key, url: Array(url.utf8), expires: expires.map { Array(String($0).utf8) }))
    }

    /// The path and query that fetch `url` with its signature: `/fetch?url=…[&exp=…]&sig=…`.
    /// - Parameters:
    ///   - url: the URL to sign.
    ///   - expires: the Unix time after which it is refused, if any.
    /// - Returns: the path; `nil` without a key or for a URL holding a line feed.
    public func signedPath(url: String, expires: Int64? = nil) -> String? {
        guard let signature = signature(url: url, expires: expires) else { return nil }
        var path = "/fetch?url=" + url.percentEncoded(keeping: ":/@")
        if let expires { path += "&exp=\(expires)" }
        return path + "&sig=" + signature
    }

    /// Whether any key signed `url` (and `expires`) as `signature`. Every key is tried, and every
    /// comparison reads the whole presented value.
    /// - Parameters:
    ///   - signature: the `sig` value as sent.
    ///   - url: the decoded `url` parameter; one holding a line feed never verifies.
    ///   - expires: the `exp` value's digits as sent, if any.
    /// - Returns: whether it verifies.
    public func verifies(signature: some Collection<UInt8>, url: [UInt8], expires: [UInt8]?) -> Bool {
        guard !url.contains(0x0A) else { return false }
        var verified = false
        for key in keys {
            let expected = Array(Self.base64URL(Self.mac(key, url: url, expires: expires)).utf8)
            verified = AdminAccess.constantTimeEquals(signature, expected) || verified
        }
        return verified
    }

    private static func mac(_ key: HMACSHA256, url: [UInt8], expires: [UInt8]?) -> [UInt8] {
        guard let expires else { return key.authenticationCode(url) }
        return key.authenticationCode(url, [0x0A], expires)
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Base64url without padding (RFC 4648 §5, §3.2).
    /// - Parameter bytes: the input.
    /// - Returns: the text.
    public static func base64URL(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let count = min(3, bytes.count - index)
            var group = UInt32(bytes[index]) << 16
            if count > 1 { group |= UInt32(bytes[index + 1]) << 8 }
            if count > 2 { group |= UInt32(bytes[index + 2]) }
            for position in 0...count {
                out.append(alphabet[Int(group >> UInt32(18 - 6 * position)) & 0x3F])
            }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
