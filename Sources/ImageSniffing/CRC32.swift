/// CRC-32 as PNG and zlib define it (ISO 3309, polynomial 0xEDB88320 reflected), table-driven.
///
/// See [PNG spec §5.5](https://www.w3.org/TR/png-3/#5CRC-algorithm) and its Annex D sample.
struct CRC32 {
    /// The running value, pre- and post-conditioned as the spec requires.
    private var state: UInt32 = 0xFFFF_FFFF

    /// One entry per byte value: the CRC of that byte with an all-zero register.
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    init() {}

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        let table = Self.table
        var crc = state
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        state = crc
    }

    var value: UInt32 { state ^ 0xFFFF_FFFF }

    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }
}
