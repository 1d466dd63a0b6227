/// CRC-32 as PNG and zlib define it (ISO 3309, polynomial 0xEDB88320 reflected), table-driven.
///
/// See [PNG spec §5.5](https://www.w3.org/TR/png-3/#5CRC-algorithm) and its Annex D sample. Eight
/// tables let the loop fold eight bytes per step ("slicing-by-8"): every read of a stored PNG checks
/// every chunk's CRC, so this loop is most of the validator's time on large PNGs.
struct CRC32 {
    /// The running value, pre- and post-conditioned as the spec requires.
    private var state: UInt32 = 0xFFFF_FFFF

    /// Table `k` (entries `256k..<256k+256`) is the CRC of a byte followed by `k` zero bytes.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var value = UInt32(index)
            for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
            tables[index] = value
        }
        for index in 0..<256 {
            for slice in 1..<8 {
                let previous = tables[(slice - 1) * 256 + index]
                tables[slice * 256 + index] = tables[Int(previous & 0xFF)] ^ (previous >> 8)
            }
        }
        return tables
    }()

    init() {}

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        var crc = state
        Self.tables.withUnsafeBufferPointer { table in
            var index = 0
            let count = bytes.count
            while index + 8 <= count {
                let low = crc ^ UInt32(littleEndianBytesAt: base + index)
                let high = UInt32(littleEndianBytesAt: base + index + 4)
                crc =
                    table[7 * 256 + Int(low & 0xFF)] ^ table[6 * 256 + Int(low >> 8 & 0xFF)]
                    ^ table[5 * 256 + Int(low >> 16 & 0xFF)] ^ table[4 * 256 + Int(low >> 24)]
                    ^ table[3 * 256 + Int(high & 0xFF)] ^ table[2 * 256 + Int(high >> 8 & 0xFF)]
                    ^ table[1 * 256 + Int(high >> 16 & 0xFF)] ^ table[Int(high >> 24)]
                index += 8
            }
            while index < count {
                crc = table[Int((crc ^ UInt32(base.load(fromByteOffset: index, as: UInt8.self))) & 0xFF)] ^ (crc >> 8)
                index += 1
            }
        }
        state = crc
    }

    var value: UInt32 { state ^ 0xFFFF_FFFF }

    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }
}

extension UInt32 {
    /// Four bytes at `pointer` as a little-endian number, whatever the alignment.
    fileprivate init(littleEndianBytesAt pointer: UnsafeRawPointer) {
        self = UInt32(littleEndian: pointer.loadUnaligned(as: UInt32.self))
    }
}
