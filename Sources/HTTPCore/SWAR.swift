/// Byte searches eight bytes at a time ("SIMD within a register"): header lines are long and mostly
/// unremarkable, so the parser looks at a whole word and only goes byte by byte where one is flagged.
/// The tests are the classic zero-byte and less-than tricks; the lowest flagged byte of a word is always
/// a true match, which is the only one these functions use.
enum SWAR {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// A word whose flagged bytes (high bit set) include every byte of `word` equal to `byte`.
    @inline(__always)
    private static func flags(equalTo byte: UInt8, _ word: UInt64) -> UInt64 {
        let difference = word ^ (ones &* UInt64(byte))
        return (difference &- ones) & ~difference & highs
    }

    /// A word whose flagged bytes include every byte of `word` below `bound` (`bound` <= 128).
    @inline(__always)
    private static func flags(below bound: UInt8, _ word: UInt64) -> UInt64 {
        (word &- ones &* UInt64(bound)) & ~word & highs
    }

    @inline(__always)
    private static func word(_ buffer: UnsafeBufferPointer<UInt8>, at index: Int) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(buffer.baseAddress! + index).loadUnaligned(as: UInt64.self))
    }

    /// `word` with each ASCII upper-case letter byte (`A`–`Z`) folded to lower case, the other bytes as
    /// they are: a byte is a letter when its low seven bits reach `A` but not past `Z` and its high bit is
    /// clear; adding to the low seven bits never carries into the next byte.
    @inline(__always)
    static func asciiLowercased(_ word: UInt64) -> UInt64 {
        let low = word & ~highs
        let fromA = low &+ ones &* (0x80 - 0x41)
        let pastZ = low &+ ones &* (0x80 - 0x5B)
        let upper = fromA & ~pastZ & ~word & highs
        return word | (upper >> 2)
    }

    /// The first index of `byte` in `buffer[index..<end]`; otherwise `nil`, with `index` left at `end`.
    @inline(__always)
    static func firstIndex(
        of byte: UInt8, in buffer: UnsafeBufferPointer<UInt8>, from index: inout Int, to end: Int
    ) -> Int? {
        while end - index >= 8 {
            let found = flags(equalTo: byte, word(buffer, at: index))
            if found != 0 { return index + found.trailingZeroBitCount / 8 }
            index += 8
        }
        while index < end {
            if buffer[index] == byte { return index }
            index += 1
        }
        return nil
    }

    /// The first byte in `range` that may not appear in a field value (a control byte other than HTAB,
    /// or DEL; RFC 9110 §5.5), or `nil`.
    @inline(__always)
    static func firstInvalidFieldValueByte(in buffer: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int? {
        var index = range.lowerBound
        while range.upperBound - index >= 8 {
            let value = word(buffer, at: index)
            // A flagged word may hold only HTABs; check it byte by byte then.
            if flags(below: 0x20, value) | flags(equalTo: 0x7F, value) != 0 {
                for position in index..<(index + 8) where !HTTPByteClass.isFieldValue(buffer[position]) {
                    return position
                }
            }
            index += 8
        }
        while index < range.upperBound {
            if !HTTPByteClass.isFieldValue(buffer[index]) { return index }
            index += 1
        }
        return nil
    }
}
