/// A minimal gzip encoder for stub bodies (RFC 1952 framing around RFC 1951 *stored* blocks).
///
/// The output is valid gzip that any decoder accepts; it is not smaller than its input, which stub
/// origins do not need. TestSupport stays free of zlib this way.
public enum StubOriginGzip {
    /// Wraps `bytes` in a gzip member.
    /// - Parameter bytes: the identity body.
    /// - Returns: the gzip-encoded body.
    public static func encode(_ bytes: [UInt8]) -> [UInt8] {
        // ID1 ID2 CM=8 FLG=0 MTIME=0 XFL=0 OS=255 (RFC 1952 §2.3).
        var out: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 255]
        var offset = 0
        repeat {
            let count = min(65_535, bytes.count - offset)
            let isFinal = offset + count == bytes.count
            // Stored block: BFINAL, BTYPE=00, then LEN and NLEN little-endian (RFC 1951 §3.2.4).
            out.append(isFinal ? 1 : 0)
            out.append(contentsOf: [UInt8(count & 0xFF), UInt8(count >> 8)])
            out.append(contentsOf: [UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)])
            out.append(contentsOf: bytes[offset..<offset + count])
            offset += count
        } while offset < bytes.count
        for value in [ReferenceCRC32.checksum(bytes), UInt32(truncatingIfNeeded: bytes.count)] {
            out.append(contentsOf: (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) })
        }
        return out
    }
}
