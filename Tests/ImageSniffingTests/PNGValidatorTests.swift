import ImageSniffing
import Testing

@Suite struct PNGValidatorTests {
    static let valid: [ValidCase] = [
        ValidCase("rgb8", Crafted.png(), .png, 3, 2),
        ValidCase("grey1", Crafted.png(width: 9, height: 1, bitDepth: 1, colourType: 0), .png, 9, 1),
        ValidCase("grey16", Crafted.png(bitDepth: 16, colourType: 0), .png, 3, 2),
        ValidCase("palette4", Crafted.png(width: 1, height: 7, bitDepth: 4, colourType: 3), .png, 1, 7),
        ValidCase("greyAlpha16", Crafted.png(bitDepth: 16, colourType: 4), .png, 3, 2),
        ValidCase("rgba16", Crafted.png(width: 80, height: 60, bitDepth: 16, colourType: 6), .png, 80, 60),
        ValidCase(
            "interlacedWithTwoIDATs",
            Crafted.png([Crafted.ihdr(interlace: 1)] + PNGImageDataTests.split(interlace: 1) + [Crafted.iend]),
            .png, 3, 2),
        ValidCase(
            "ancillaryChunks",
            Crafted.png([
                Crafted.ihdr(), Crafted.pngChunk("tEXt", ascii("a\0b")), Crafted.idat,
                Crafted.pngChunk("tIME", [7, 0xE9, 1, 1, 0, 0, 0]), Crafted.iend,
            ]), .png, 3, 2),
    ]

    static let invalid: [InvalidCase] = [
        InvalidCase("idatBeforeIHDR", Crafted.png([Crafted.idat, Crafted.ihdr(), Crafted.iend]), .pngIHDRNotFirst),
        InvalidCase(
            "ihdrCRC",
            Crafted.png([
                Crafted.pngChunk("IHDR", be32(3) + be32(2) + [8, 2, 0, 0, 0], crc: 0x1234_5678), Crafted.idat,
                Crafted.iend,
            ]), .pngCRCMismatch),
        InvalidCase(
            "iendCRC", Crafted.png([Crafted.ihdr(), Crafted.idat, Crafted.pngChunk("IEND", [], crc: 0)]),
            .pngCRCMismatch),
        InvalidCase("rgbWithFourBits", Crafted.png(bitDepth: 4, colourType: 2), .pngBadIHDR),
        InvalidCase("paletteWith16Bits", Crafted.png(bitDepth: 16, colourType: 3), .pngBadIHDR),
        InvalidCase("colourType5", Crafted.png(colourType: 5), .pngBadIHDR),
        InvalidCase("interlace2", Crafted.png([Crafted.ihdr(interlace: 2), Crafted.idat, Crafted.iend]), .pngBadIHDR),
        InvalidCase(
            "shortIHDR", Crafted.png([Crafted.pngChunk("IHDR", be32(3) + be32(2)), Crafted.idat, Crafted.iend]),
            .pngBadIHDR),
        InvalidCase("widthAbove2to31", Crafted.png(width: 0x8000_0000), .pngBadIHDR),
        InvalidCase("zeroWidth", Crafted.png(width: 0), .zeroDimension),
        InvalidCase("zeroHeight", Crafted.png(height: 0), .zeroDimension),
        InvalidCase("hugeDimension", Crafted.png(width: 100_000, height: 1), .dimensionLimit),
        InvalidCase("bomb", Crafted.png(width: 60_000, height: 60_000), .pixelLimit),
        InvalidCase("noIDAT", Crafted.png([Crafted.ihdr(), Crafted.iend]), .pngMissingIDAT),
        InvalidCase(
            "idatSplitByText",
            Crafted.png([
                Crafted.ihdr(), Crafted.idat, Crafted.pngChunk("tEXt", ascii("a\0b")), Crafted.idat,
                Crafted.iend,
            ]), .pngIDATNotContiguous),
        InvalidCase(
            "paletteWithoutPLTE", Crafted.png([Crafted.ihdr(colourType: 3), Crafted.idat, Crafted.iend]),
            .pngBadPalette),
        InvalidCase(
            "plteOfFourBytes",
            Crafted.png([
                Crafted.ihdr(colourType: 3), Crafted.pngChunk("PLTE", [1, 2, 3, 4]), Crafted.idat,
                Crafted.iend,
            ]), .pngBadPalette),
        InvalidCase(
            "plteInGreyImage",
            Crafted.png([
                Crafted.ihdr(colourType: 0), Crafted.pngChunk("PLTE", [1, 2, 3]), Crafted.idat,
                Crafted.iend,
            ]), .pngBadPalette),
        InvalidCase(
            "secondIHDR", Crafted.png([Crafted.ihdr(), Crafted.ihdr(), Crafted.idat, Crafted.iend]),
            .pngMisplacedChunk),
        InvalidCase(
            "iendWithData",
            Crafted.png([Crafted.ihdr(), Crafted.idat, Crafted.pngChunk("IEND", [0])]), .pngMisplacedChunk),
        InvalidCase("bytesAfterIEND", Crafted.png() + [0], .trailingData),
        InvalidCase("noIEND", Crafted.png([Crafted.ihdr(), Crafted.idat]), .truncated),
        InvalidCase(
            "chunkTypeWithDigit",
            Crafted.png([Crafted.ihdr(), Crafted.pngChunk("ID4T", []), Crafted.idat, Crafted.iend]),
            .pngBadChunk),
        InvalidCase("lengthAbove2to31", Crafted.png().replacing(at: 33, with: be32(0x8000_0000)), .pngBadChunk),
        InvalidCase("lengthPastTheEnd", Crafted.png().replacing(at: 33, with: be32(1000)), .truncated),
        InvalidCase("signatureOnly", Array(Crafted.png().prefix(8)), .truncated),
        InvalidCase(
            "lineEndingsConverted", [0x89, 0x50, 0x4E, 0x47, 0x0A, 0x1A, 0x0A] + Crafted.png().dropFirst(8),
            .unknownFormat),
    ]

    @Test(arguments: valid) func validPNGIsAcceptedWithItsSize(_ item: ValidCase) { item.check() }
    @Test(arguments: invalid) func damagedPNGIsRejectedWithItsReason(_ item: InvalidCase) { item.check() }

    @Test func everyPrefixOfACraftedPNGIsTruncated() {
        let bytes = Crafted.png()
        for length in 8..<bytes.count {
            #expect(ImageValidator().validate(bytes[..<length]).rejection?.reason == .truncated, "\(length)")
        }
    }
}
