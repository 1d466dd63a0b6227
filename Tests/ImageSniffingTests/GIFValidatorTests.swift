import ImageSniffing
import Testing

@Suite struct GIFValidatorTests {
    static let header87 = ascii("GIF87a") + le16(2) + le16(2) + [0, 0, 0]
    static let image: [UInt8] = [0x2C] + le16(0) + le16(0) + le16(2) + le16(2) + [0, 2, 2, 0x4C, 0x01, 0]

    static let valid: [ValidCase] = [
        ValidCase("gif89a", Crafted.gif(), .gif, 4, 3),
        ValidCase("gif87aWithoutColourTables", header87 + image + [0x3B], .gif, 2, 2),
        ValidCase(
            "twoFramesAndComment",
            header87 + image + [0x21, 0xFE, 2, 0x68, 0x69, 0] + image + [0x3B], .gif, 2, 2),
        ValidCase("largestScreen", Crafted.gif(width: 8000, height: 8000), .gif, 8000, 8000),
    ]

    static let invalid: [InvalidCase] = [
        InvalidCase("lzwCodeSize12", Crafted.gif(codeSize: 12), .gifBadLZWCodeSize),
        InvalidCase("lzwCodeSize0", Crafted.gif(codeSize: 0), .gifBadLZWCodeSize),
        InvalidCase("unknownBlock", header87 + [0x99] + image + [0x3B], .gifBadBlock),
        InvalidCase("trailerWithoutImage", header87 + [0x3B], .gifMissingImage),
        InvalidCase("bytesAfterTrailer", Crafted.gif() + [0x00], .trailingData),
        InvalidCase("noTrailer", Array(Crafted.gif().dropLast()), .truncated),
        InvalidCase("subBlockPastTheEnd", header87 + image.dropLast(3) + [0x40, 1, 2], .truncated),
        InvalidCase("colourTablePastTheEnd", ascii("GIF89a") + le16(2) + le16(2) + [0x87, 0, 0, 1, 2, 3], .truncated),
        InvalidCase("zeroWidth", Crafted.gif(width: 0), .zeroDimension),
        InvalidCase("bomb", Crafted.gif(width: 65_535, height: 65_535), .pixelLimit),
        InvalidCase("gif88a", Array(Crafted.gif().replacing(at: 0, with: ascii("GIF88a"))), .unknownFormat),
    ]

    @Test(arguments: valid) func validGIFIsAcceptedWithItsSize(_ item: ValidCase) { item.check() }
    @Test(arguments: invalid) func damagedGIFIsRejectedWithItsReason(_ item: InvalidCase) { item.check() }

    @Test func everyPrefixOfACraftedGIFIsTruncated() {
        let bytes = Crafted.gif()
        for length in 6..<bytes.count {
            #expect(ImageValidator().validate(bytes[..<length]).rejection?.reason == .truncated, "\(length)")
        }
    }
}
