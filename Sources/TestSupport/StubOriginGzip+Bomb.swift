extension StubOriginGzip {
    /// A gzip member of `repeats × 258 + 1` zero bytes in about `repeats × 13 / 8` bytes: a decompression
    /// bomb. One fixed-Huffman block (RFC 1951 §3.2.6): a literal 0, then back-references of length 258
    /// at distance 1, then end-of-block; the trailer holds the real CRC-32 and size, so a decoder that
    /// inflates it really gets every byte.
    /// - Parameter repeats: how many 258-byte back-references.
    /// - Returns: the encoded member and the size it inflates to.
    public static func bomb(repeats: Int) -> (encoded: [UInt8], inflatedSize: Int) {
        var bits = BitWriter()
        bits.write(1, count: 1)  // BFINAL
        bits.write(1, count: 2)  // BTYPE 01: fixed Huffman codes
        bits.writeHuffman(0x30, count: 8)  // literal 0
        for _ in 0..<repeats {
            bits.writeHuffman(0xC5, count: 8)  // length code 285: 258 bytes, no extra bits
            bits.writeHuffman(0, count: 5)  // distance code 0: distance 1
        }
        bits.writeHuffman(0, count: 7)  // end of block (256)
        let inflatedSize = repeats * 258 + 1
        var out: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 255]
        out += bits.finished
        for value in [ReferenceCRC32.checksumOfZeros(count: inflatedSize), UInt32(truncatingIfNeeded: inflatedSize)] {
            out.append(contentsOf: (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) })
        }
        return (out, inflatedSize)
    }
}

/// Packs deflate bits least significant first (RFC 1951 §3.1.1).
private struct BitWriter {
    var bytes: [UInt8] = []
    private var current: UInt32 = 0
    private var filled = 0

    /// Writes a value's low `count` bits, least significant first (header fields, extra bits).
    mutating func write(_ value: UInt32, count: Int) {
        for bit in 0..<count { push((value >> UInt32(bit)) & 1) }
    }

    /// Writes a Huffman code, most significant bit first.
    mutating func writeHuffman(_ code: UInt32, count: Int) {
        for bit in stride(from: count - 1, through: 0, by: -1) { push((code >> UInt32(bit)) & 1) }
    }

    private mutating func push(_ bit: UInt32) {
        current |= bit << UInt32(filled)
        filled += 1
        if filled == 8 {
            bytes.append(UInt8(current))
            current = 0
            filled = 0
        }
    }

    /// The bytes with the last partial byte flushed.
    var finished: [UInt8] { filled == 0 ? bytes : bytes + [UInt8(current)] }
}
