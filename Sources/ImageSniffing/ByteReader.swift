/// Byte order of a multi-byte field.
enum ByteOrder {
    case bigEndian
    case littleEndian
}

/// A cursor over borrowed bytes whose every read is bounds-checked first.
///
/// Reads past the end throw `truncated` for the reader's format, so validators never trust a
/// length before it has been compared with the bytes actually present.
struct ByteReader {
    /// The bytes being read; borrowed for the duration of one validation.
    let bytes: UnsafeRawBufferPointer
    /// The format named in rejections this reader throws.
    let format: ImageFormat?
    /// The position of the next read, from the start of `bytes`.
    private(set) var offset: Int

    init(_ bytes: UnsafeRawBufferPointer, format: ImageFormat?, offset: Int = 0) {
        self.bytes = bytes
        self.format = format
        self.offset = offset
    }

    var count: Int { bytes.count }
    var remaining: Int { bytes.count - offset }
    var isAtEnd: Bool { offset >= bytes.count }

    func rejection(_ reason: ImageRejection.Reason, _ detail: String) -> ImageRejection {
        ImageRejection(format: format, reason: reason, detail: detail)
    }

    /// Throws `truncated` unless `length` bytes remain.
    func require(_ length: Int, _ what: @autoclosure () -> String) throws(ImageRejection) {
        guard length >= 0, length <= remaining else {
            throw rejection(.truncated, "\(what()) needs \(length) bytes at offset \(offset), \(remaining) left")
        }
    }

    mutating func readUInt8() throws(ImageRejection) -> UInt8 {
        try require(1, "a byte")
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func readUInt16(_ order: ByteOrder) throws(ImageRejection) -> UInt16 {
        try require(2, "a 16-bit field")
        defer { offset += 2 }
        let a = UInt16(bytes[offset]), b = UInt16(bytes[offset + 1])
        return order == .bigEndian ? a << 8 | b : b << 8 | a
    }

    mutating func readUInt24(_ order: ByteOrder) throws(ImageRejection) -> UInt32 {
        try require(3, "a 24-bit field")
        defer { offset += 3 }
        let a = UInt32(bytes[offset]), b = UInt32(bytes[offset + 1]), c = UInt32(bytes[offset + 2])
        return order == .bigEndian ? a << 16 | b << 8 | c : c << 16 | b << 8 | a
    }

    mutating func readUInt32(_ order: ByteOrder) throws(ImageRejection) -> UInt32 {
        try require(4, "a 32-bit field")
        defer { offset += 4 }
        var value: UInt32 = 0
        for index in 0..<4 {
            let byte = UInt32(bytes[offset + (order == .bigEndian ? index : 3 - index)])
            value = value << 8 | byte
        }
        return value
    }

    mutating func readUInt64BigEndian() throws(ImageRejection) -> UInt64 {
        try require(8, "a 64-bit field")
        defer { offset += 8 }
        var value: UInt64 = 0
        for index in 0..<8 { value = value << 8 | UInt64(bytes[offset + index]) }
        return value
    }

    /// Reads `width` bytes (0...8) as a big-endian unsigned number, as ISO-BMFF's `iloc` sizes them.
    mutating func readUIntBigEndian(width: Int) throws(ImageRejection) -> UInt64 {
        try require(width, "a \(width)-byte field")
        defer { offset += width }
        var value: UInt64 = 0
        for index in 0..<width { value = value << 8 | UInt64(bytes[offset + index]) }
        return value
    }

    /// Reads a four-character code as a big-endian `UInt32` (compare with `fourCC("IHDR")`).
    mutating func readFourCC() throws(ImageRejection) -> UInt32 {
        try readUInt32(.bigEndian)
    }

    mutating func skip(_ length: Int) throws(ImageRejection) {
        try require(length, "skipping")
        offset += length
    }

    /// Skips a length read from the file, which may not fit in an `Int`.
    mutating func skip(_ length: UInt64) throws(ImageRejection) {
        guard length <= UInt64(remaining) else {
            throw rejection(.truncated, "a length of \(length) at offset \(offset) passes the end (\(remaining) left)")
        }
        offset += Int(length)
    }

    mutating func seek(to position: Int) throws(ImageRejection) {
        guard position >= 0, position <= bytes.count else {
            throw rejection(.truncated, "offset \(position) is past the end (\(bytes.count) bytes)")
        }
        offset = position
    }

    /// A reader over the next `length` bytes (rebased to start at 0), advancing past them.
    mutating func subReader(_ length: Int, format: ImageFormat? = nil) throws(ImageRejection) -> ByteReader {
        try require(length, "a sub-structure")
        defer { offset += length }
        let slice = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length])
        return ByteReader(slice, format: format ?? self.format)
    }

    /// Whether the next bytes equal `literal`, without moving.
    func peek(matches literal: some Sequence<UInt8>) -> Bool {
        var position = offset
        for byte in literal {
            guard position < bytes.count, bytes[position] == byte else { return false }
            position += 1
        }
        return true
    }
}

/// A four-character code as the big-endian `UInt32` `ByteReader.readFourCC()` returns.
func fourCC(_ text: StaticString) -> UInt32 {
    precondition(text.utf8CodeUnitCount == 4)
    var value: UInt32 = 0
    text.withUTF8Buffer { for byte in $0 { value = value << 8 | UInt32(byte) } }
    return value
}

/// A four-character code as text, for rejection details.
func fourCCText(_ code: UInt32) -> String {
    var text = ""
    for shift in stride(from: 24, through: 0, by: -8) {
        let byte = UInt8(truncatingIfNeeded: code >> UInt32(shift))
        text += (0x20...0x7e).contains(byte) ? String(UnicodeScalar(byte)) : "\\x\(String(byte, radix: 16))"
    }
    return text
}
