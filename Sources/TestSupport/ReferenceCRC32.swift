/// CRC-32 (ISO-HDLC, the polynomial gzip and PNG use) straight from its definition, one bit at a time:
/// the oracle tests check zlib's `crc32` and stored checksums against. It shares no code with zlib, as
/// TestSupport's gzip encoder does not, so a fault in either cannot hide behind the other.
public enum ReferenceCRC32 {
    /// The checksum of some bytes.
    /// - Parameter bytes: the bytes.
    /// - Returns: their CRC-32.
    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = step(crc ^ UInt32(byte)) }
        return ~crc
    }

    /// The checksum of `count` zero bytes, a byte at a time through a table of the bitwise steps: bombs
    /// are megabytes of zeros.
    /// - Parameter count: how many zero bytes.
    /// - Returns: their CRC-32.
    public static func checksumOfZeros(count: Int) -> UInt32 {
        let table = (0..<256).map { step(UInt32($0)) }
        var crc: UInt32 = 0xFFFF_FFFF
        table.withUnsafeBufferPointer { table in
            for _ in 0..<count { crc = table[Int(crc & 0xFF)] ^ (crc >> 8) }
        }
        return ~crc
    }

    /// Eight shifts of the low byte through the reflected polynomial 0xEDB88320.
    private static func step(_ value: UInt32) -> UInt32 {
        var crc = value
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        return crc
    }
}
