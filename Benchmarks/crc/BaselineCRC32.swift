/// The two Swift CRC-32 loops Larder used before zlib's `crc32` replaced them, kept here as the named
/// baselines of this benchmark (nowhere else): `bytewise` was CacheCore's (one 256-entry table, a byte a
/// step), `slicingBy8` was ImageSniffing's for PNG chunks (eight tables, eight bytes a step).
enum BaselineCRC32 {
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

    /// A byte a step through one table, over any sequence of bytes, as CacheCore's `CRC32.update` was.
    static func bytewise(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        bytewise(sequence: bytes)
    }

    private static func bytewise(sequence bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc = tables[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        return ~crc
    }

    /// Eight bytes a step through eight tables, as ImageSniffing's `CRC32.update` was.
    static func slicingBy8(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard let base = bytes.baseAddress else { return 0 }
        var crc: UInt32 = 0xFFFF_FFFF
        tables.withUnsafeBufferPointer { table in
            var index = 0
            let count = bytes.count
            while index + 8 <= count {
                let low = crc ^ UInt32(littleEndian: (base + index).loadUnaligned(as: UInt32.self))
                let high = UInt32(littleEndian: (base + index + 4).loadUnaligned(as: UInt32.self))
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
        return ~crc
    }
}
