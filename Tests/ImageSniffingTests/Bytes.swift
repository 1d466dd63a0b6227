// Little helpers to spell crafted files as byte arrays.

func be16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
func be32(_ value: Int) -> [UInt8] { be16(value >> 16 & 0xFFFF) + be16(value & 0xFFFF) }
func be64(_ value: Int) -> [UInt8] { be32(value >> 32 & 0xFFFF_FFFF) + be32(value & 0xFFFF_FFFF) }
func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
func le24(_ value: Int) -> [UInt8] { le16(value & 0xFFFF) + [UInt8(value >> 16 & 0xFF)] }
func le32(_ value: Int) -> [UInt8] { le16(value & 0xFFFF) + le16(value >> 16 & 0xFFFF) }
func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }

extension Array where Element == UInt8 {
    /// A copy with the bytes at `offset` replaced.
    func replacing(at offset: Int, with bytes: [UInt8]) -> [UInt8] {
        var copy = self
        copy.replaceSubrange(offset..<offset + bytes.count, with: bytes)
        return copy
    }

    /// A copy with the byte at `offset` XORed with `mask`.
    func flipping(at offset: Int, mask: UInt8 = 0x01) -> [UInt8] {
        var copy = self
        copy[offset] ^= mask
        return copy
    }

    /// The offset of the first occurrence of `needle`.
    func offset(of needle: [UInt8]) -> Int? {
        guard needle.count <= count else { return nil }
        for start in 0...(count - needle.count) where self[start..<start + needle.count].elementsEqual(needle) {
            return start
        }
        return nil
    }
}
