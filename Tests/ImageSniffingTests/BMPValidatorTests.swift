import ImageSniffing
import Testing

@Suite struct BMPValidatorTests {
    static let valid: [ValidCase] = [
        ValidCase("info24", Crafted.bmp(), .bmp, 3, 2),
        ValidCase("topDown", Crafted.bmp(width: 5, height: -3), .bmp, 5, 3),
        ValidCase("core12", Crafted.coreBMP(), .bmp, 2, 2),
        ValidCase("v4header", Crafted.bmp(headerSize: 108), .bmp, 3, 2),
        ValidCase("v5header32", Crafted.bmp(width: 7, headerSize: 124, bitCount: 32, compression: 3), .bmp, 7, 2),
        ValidCase("header52", Crafted.bmp(headerSize: 52), .bmp, 3, 2),
        ValidCase("header56", Crafted.bmp(headerSize: 56), .bmp, 3, 2),
        ValidCase("palette8", Crafted.bmp(width: 9, height: 4, bitCount: 8), .bmp, 9, 4),
        ValidCase("bilevel", Crafted.bmp(width: 33, height: 2, bitCount: 1), .bmp, 33, 2),
        ValidCase("trailingPadding", Crafted.bmp() + [0, 0], .bmp, 3, 2),
        // `biSizeImage` may be 0, or short of the padded rows (old writers), for uncompressed pixels.
        ValidCase("noImageSize", Crafted.bmp().replacing(at: 34, with: le32(0)), .bmp, 3, 2),
        ValidCase("unpaddedImageSize", Crafted.bmp().replacing(at: 34, with: le32(18)), .bmp, 3, 2),
        ValidCase("rle8", Crafted.bmp(width: 4, height: 2, bitCount: 8, compression: 1), .bmp, 4, 2),
        ValidCase("zeroResolution", Crafted.bmp().replacing(at: 38, with: le32(0) + le32(0)), .bmp, 3, 2),
    ]

    static let invalid: [InvalidCase] = [
        InvalidCase("twoPlanes", Crafted.bmp().replacing(at: 26, with: le16(2)), .bmpBadFormat),
        InvalidCase("sevenBits", Crafted.bmp().replacing(at: 28, with: le16(7)), .bmpBadFormat),
        InvalidCase("rle8With24Bits", Crafted.bmp(compression: 1), .bmpBadFormat),
        InvalidCase("unknownCompression", Crafted.bmp(compression: 9), .bmpBadFormat),
        InvalidCase("topDownRLE", Crafted.bmp(height: -2, bitCount: 8, compression: 1), .bmpBadFormat),
        InvalidCase("tooManyColours", Crafted.bmp(bitCount: 1).replacing(at: 46, with: le32(3)), .bmpBadFormat),
        InvalidCase("pixelsInsideHeader", Crafted.bmp().replacing(at: 10, with: le32(20)), .bmpBadOffset),
        InvalidCase("pixelOffsetPastTheEnd", Crafted.bmp().replacing(at: 10, with: le32(4000)), .truncated),
        InvalidCase(
            "rowsMissing", Array(Crafted.bmp(height: 9).dropLast(3)).replacing(at: 2, with: le32(0)), .truncated),
        InvalidCase("fileSizePastTheEnd", Crafted.bmp().replacing(at: 2, with: le32(10_000)), .truncated),
        InvalidCase("dibHeaderCut", Array(Crafted.bmp(headerSize: 124).prefix(60)), .truncated),
        InvalidCase("zeroWidth", Crafted.bmp(width: 0), .zeroDimension),
        InvalidCase("wideBomb", Crafted.bmp(width: 1).replacing(at: 18, with: le32(70_000)), .dimensionLimit),
        InvalidCase(
            "bomb", Crafted.bmp(width: 1).replacing(at: 18, with: le32(60_000)).replacing(at: 22, with: le32(60_000)),
            .pixelLimit),
        InvalidCase(
            "int32MinHeight", Crafted.bmp().replacing(at: 22, with: le32(Int(Int32.min.magnitude))), .dimensionLimit),
        InvalidCase("unknownHeaderSize", Crafted.bmp().replacing(at: 14, with: le32(64)), .unknownFormat),
        InvalidCase("imageSizePastTheFile", Crafted.bmp().replacing(at: 34, with: le32(4096)), .bmpBadFormat),
        InvalidCase(
            "rle8WithoutImageSize",
            Crafted.bmp(width: 4, height: 2, bitCount: 8, compression: 1).replacing(at: 34, with: le32(0)),
            .bmpBadFormat),
        InvalidCase("negativeXResolution", Crafted.bmp().replacing(at: 38, with: le32(Int(UInt32.max))), .bmpBadFormat),
        InvalidCase(
            "negativeYResolution", Crafted.bmp().replacing(at: 42, with: le32(Int(Int32.min.magnitude))), .bmpBadFormat),
    ]

    @Test(arguments: valid) func validBMPIsAcceptedWithItsSize(_ item: ValidCase) { item.check() }
    @Test(arguments: invalid) func damagedBMPIsRejectedWithItsReason(_ item: InvalidCase) { item.check() }

    @Test func everyPrefixOfACraftedBMPIsTruncated() {
        let bytes = Crafted.bmp(width: 3, height: 3, bitCount: 8)
        for length in 2..<bytes.count {
            #expect(ImageValidator().validate(bytes[..<length]).rejection?.reason == .truncated, "\(length)")
        }
    }
}
