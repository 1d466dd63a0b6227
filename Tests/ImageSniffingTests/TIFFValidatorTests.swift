import ImageSniffing
import Testing

@Suite struct TIFFValidatorTests {
    /// Offset of the crafted IFD: 8 bytes of header, then the strip of width × height bytes.
    static func ifdOffset(width: Int = 2, height: Int = 2) -> Int { 8 + width * height + (width * height) % 2 }

    static let valid: [ValidCase] = [
        ValidCase("littleEndian", Crafted.tiff(), .tiff, 2, 2),
        ValidCase("bigEndian", Crafted.tiff(bigEndian: true, width: 3, height: 5), .tiff, 3, 5),
        ValidCase("trailingBytes", Crafted.tiff() + [0, 0, 0, 0], .tiff, 2, 2),
    ]

    static let invalid: [InvalidCase] = [
        InvalidCase("ifdPointsToItself", Crafted.tiff(nextIFD: ifdOffset()), .tiffIFDLoop),
        InvalidCase("bigEndianLoop", Crafted.tiff(bigEndian: true, nextIFD: ifdOffset()), .tiffIFDLoop),
        InvalidCase("nextIFDPastTheEnd", Crafted.tiff(nextIFD: 5000), .truncated),
        InvalidCase("nextIFDInsideHeader", Crafted.tiff(nextIFD: 4), .tiffBadIFD),
        InvalidCase("noFirstIFD", Crafted.tiff().replacing(at: 4, with: le32(0)), .tiffBadIFD),
        InvalidCase("firstIFDPastTheEnd", Crafted.tiff().replacing(at: 4, with: le32(1 << 30)), .truncated),
        InvalidCase("noWidth", Crafted.tiff(dropTag: 256), .tiffMissingTag),
        InvalidCase("noLength", Crafted.tiff(dropTag: 257), .tiffMissingTag),
        InvalidCase("noStripOffsets", Crafted.tiff(dropTag: 273), .tiffMissingTag),
        InvalidCase("noStripByteCounts", Crafted.tiff(dropTag: 279), .tiffMissingTag),
        InvalidCase("stripPastTheEnd", Crafted.tiff(stripOffset: 5000), .truncated),
        InvalidCase("stripLengthPastTheEnd", Crafted.tiff(stripLength: 0xFFFF_FFF0), .truncated),
        InvalidCase("zeroHeight", Crafted.tiff(height: 0), .zeroDimension),
        InvalidCase("bomb", Crafted.tiff(width: 60_000, height: 60_000, dataBytes: 4), .pixelLimit),
        InvalidCase("bigTIFF", ascii("II") + le16(43) + le16(8) + le16(0) + be64(16), .tiffUnsupported),
        InvalidCase("emptyIFD", ascii("II") + le16(42) + le32(8) + le16(0) + le32(0), .tiffBadIFD),
    ]

    @Test(arguments: valid) func validTIFFIsAcceptedWithItsSize(_ item: ValidCase) { item.check() }
    @Test(arguments: invalid) func damagedTIFFIsRejectedWithItsReason(_ item: InvalidCase) { item.check() }

    @Test func everyPrefixOfACraftedTIFFIsTruncated() {
        for bytes in [Crafted.tiff(), Crafted.tiff(bigEndian: true)] {
            for length in 4..<bytes.count {
                #expect(ImageValidator().validate(bytes[..<length]).rejection?.reason == .truncated, "\(length)")
            }
        }
    }

    @Test func ifdsSharingOneLargeStripArrayAreRefused() {
        // 200 IFDs whose strip offsets and counts all point at the same two 1000-entry arrays: each
        // IFD is valid alone, but walking them all would read the arrays 200 times.
        let strips = 1000
        let arrays = 8
        let firstIFD = arrays + 8 * strips
        let ifdSize = 2 + 4 * 12 + 4
        var bytes = ascii("II") + le16(42) + le32(firstIFD) + [UInt8](repeating: 0, count: 8 * strips)
        for index in 0..<200 {
            let next = index == 199 ? 0 : firstIFD + (index + 1) * ifdSize
            bytes += le16(4)
            bytes += le16(256) + le16(4) + le32(1) + le32(1)
            bytes += le16(257) + le16(4) + le32(1) + le32(1)
            bytes += le16(273) + le16(4) + le32(strips) + le32(arrays)
            bytes += le16(279) + le16(4) + le32(strips) + le32(arrays + 4 * strips)
            bytes += le32(next)
        }
        #expect(ImageValidator().validate(bytes).rejection?.reason == .tiffBadIFD)
        // The same file with two IFDs is fine: the cap only bites on overlapping structures.
        let two = Array(bytes[..<(firstIFD + 2 * ifdSize)]).replacing(at: firstIFD + 2 * ifdSize - 4, with: le32(0))
        #expect(ImageValidator().validate(two).info?.width == 1)
    }
}
