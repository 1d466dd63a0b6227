/// CRC-32 as used by gzip's trailer (ISO-HDLC, reflected polynomial 0xEDB88320; RFC 1952 §8).
///
/// `Storage` uses zlib's faster `crc32`; this one serves the in-memory store and tests, and the two
/// must agree (tests check it).
public struct CRC32: Sendable, Equatable {
    /// The checksum of the bytes fed so far.
    public private(set) var value: UInt32 = 0

    /// Starts an empty checksum.
    public init() {}

    /// Feeds more bytes.
    /// - Parameter bytes: the next bytes.
    public mutating func update(_ bytes: some Sequence<UInt8>) {
        var crc = ~value
        for byte in bytes {
            crc = Self.table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        value = ~crc
    }

    /// The checksum of some bytes.
    /// - Parameter bytes: the bytes.
    /// - Returns: the CRC-32.
    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }

    private static let table: [UInt32] = (0..<256).map { index in
        var crc = UInt32(index)
        for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        return crc
    }
}
