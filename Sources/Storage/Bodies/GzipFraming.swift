/// The gzip member header and trailer around the stored deflate chunks (RFC 1952 §2.3).
enum GzipFraming {
    /// ID1 ID2, CM=8 (deflate), FLG=0, MTIME=0 (none), XFL=0, OS=255 (unknown).
    static let header: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xFF]

    /// CRC-32 then ISIZE (length modulo 2^32), both little-endian.
    /// - Parameters:
    ///   - crc32: the CRC-32 of the uncompressed body.
    ///   - length: the uncompressed length.
    /// - Returns: the 8 trailer bytes.
    static func trailer(crc32: UInt32, length: Int) -> [UInt8] {
        let size = UInt32(truncatingIfNeeded: length)
        return (0..<4).map { UInt8(truncatingIfNeeded: crc32 >> (8 * $0)) }
            + (0..<4).map { UInt8(truncatingIfNeeded: size >> (8 * $0)) }
    }
}
