import CZlib

/// CRC-32 as gzip, PNG and zlib define it (ISO-HDLC, reflected polynomial 0xEDB88320; RFC 1952 §8,
/// [PNG §5.5](https://www.w3.org/TR/png-3/#5CRC-algorithm)), computed by zlib's `crc32_z`
/// ([manual: Checksum functions](https://zlib.net/manual.html#Checksum)), which folds several words at a
/// time ("braided") and is several times faster than a table-per-byte loop.
public struct CRC32: Sendable, Hashable {
    /// The checksum of the bytes fed so far (0 for none).
    public private(set) var value: UInt32

    /// Starts a checksum.
    /// - Parameter value: the checksum of bytes already seen, to continue it; 0 to start afresh.
    public init(continuing value: UInt32 = 0) { self.value = value }

    /// Feeds more bytes.
    /// - Parameter bytes: the next bytes.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        value = UInt32(truncatingIfNeeded: crc32_z(uLong(value), base.assumingMemoryBound(to: Bytef.self), bytes.count))
    }

    /// Feeds more bytes.
    /// - Parameter bytes: the next bytes; copied first when they are not stored contiguously.
    public mutating func update(_ bytes: some Collection<UInt8>) {
        bytes.withContiguousBytes { update($0) }
    }

    /// The checksum of some bytes.
    /// - Parameter bytes: the bytes.
    /// - Returns: their CRC-32.
    public static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }

    /// The checksum of some bytes.
    /// - Parameter bytes: the bytes; copied first when they are not stored contiguously.
    /// - Returns: their CRC-32.
    public static func checksum(_ bytes: some Collection<UInt8>) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }
}
