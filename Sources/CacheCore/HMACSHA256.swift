import CCrypto

/// HMAC-SHA256 (RFC 2104 with SHA-256, the construction of RFC 4231) under one key, for signed `/fetch`
/// URLs. It lives here because `CacheCore` is the one target that imports `CCrypto`.
///
/// The key's inner and outer pads are hashed once, when the value is made: a signature check then costs
/// two SHA-256 finalisations over the message and 32 bytes, with no allocation and no provider lookup
/// (libcrypto's one-shot `HMAC()` fetches its algorithms on every call in OpenSSL 3).
public struct HMACSHA256: Sendable {
    /// Bytes in a digest (and so in a signature).
    public static let digestLength = 32
    private static let blockLength = 64

    // SHA-256 states after `K ^ ipad` and `K ^ opad` (RFC 2104 §2), copied for each message.
    private let inner: SHA256_CTX
    private let outer: SHA256_CTX

    /// Prepares a key.
    /// - Parameter key: the secret, any length (RFC 2104 §3: a longer one than a block is hashed first).
    public init(key: some Collection<UInt8>) {
        var block = [UInt8](key)
        if block.count > Self.blockLength { block = Self.sha256(block) }
        block += [UInt8](repeating: 0, count: Self.blockLength - block.count)
        var inner = SHA256_CTX()
        var outer = SHA256_CTX()
        SHA256_Init(&inner)
        SHA256_Init(&outer)
        let innerPad = block.map { $0 ^ 0x36 }
        let outerPad = block.map { $0 ^ 0x5C }
        innerPad.withUnsafeBytes { _ = SHA256_Update(&inner, $0.baseAddress, $0.count) }
        outerPad.withUnsafeBytes { _ = SHA256_Update(&outer, $0.baseAddress, $0.count) }
        self.inner = inner
        self.outer = outer
    }

    /// The MAC of a message given in pieces, laid end to end.
    /// - Parameter pieces: the message's parts, in order.
    /// - Returns: the 32 bytes of HMAC-SHA256(key, pieces joined).
    public func authenticationCode(_ pieces: [UInt8]...) -> [UInt8] {
        var context = inner
        for piece in pieces {
            piece.withUnsafeBytes { _ = SHA256_Update(&context, $0.baseAddress, $0.count) }
        }
        var innerDigest = [UInt8](repeating: 0, count: Self.digestLength)
        innerDigest.withUnsafeMutableBufferPointer { _ = SHA256_Final($0.baseAddress, &context) }
        context = outer
        innerDigest.withUnsafeBytes { _ = SHA256_Update(&context, $0.baseAddress, $0.count) }
        var digest = [UInt8](repeating: 0, count: Self.digestLength)
        digest.withUnsafeMutableBufferPointer { _ = SHA256_Final($0.baseAddress, &context) }
        return digest
    }

    /// SHA-256 of some bytes (https://docs.openssl.org/3.0/man3/SHA256_Init/).
    /// - Parameter bytes: the input.
    /// - Returns: the 32-byte digest.
    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var context = SHA256_CTX()
        SHA256_Init(&context)
        bytes.withUnsafeBytes { _ = SHA256_Update(&context, $0.baseAddress, $0.count) }
        var digest = [UInt8](repeating: 0, count: digestLength)
        digest.withUnsafeMutableBufferPointer { _ = SHA256_Final($0.baseAddress, &context) }
        return digest
    }
}
