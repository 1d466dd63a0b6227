import ImageSniffing
import Testing

@Suite struct ICOValidatorTests {
    static let png16 = Crafted.png(width: 16, height: 16, colourType: 6)

    static let valid: [ValidCase] = [
        ValidCase("icoWithPNG", Crafted.icon(images: [(16, 16, png16)]), .ico, 16, 16),
        ValidCase("icoWithDIB32", Crafted.icon(images: [(4, 4, Crafted.iconDIB())]), .ico, 4, 4),
        ValidCase(
            "icoWithDIB32WithoutMask", Crafted.icon(images: [(4, 4, Crafted.iconDIB(withMask: false))]), .ico, 4, 4),
        ValidCase(
            "icoWithDIB8", Crafted.icon(images: [(5, 3, Crafted.iconDIB(width: 5, height: 3, bitCount: 8))]),
            .ico, 5, 3),
        ValidCase(
            "curWithDIB", Crafted.icon(type: 2, images: [(8, 8, Crafted.iconDIB(width: 8, height: 8))]), .cur, 8, 8),
        ValidCase("curWithPNG", Crafted.icon(type: 2, images: [(16, 16, png16)]), .cur, 16, 16),
        ValidCase(
            "largestImageIsReported",
            Crafted.icon(images: [
                (4, 4, Crafted.iconDIB()), (0, 0, Crafted.png(width: 256, height: 256)),
                (16, 16, png16),
            ]), .ico, 256, 256),
    ]

    static let invalid: [InvalidCase] = [
        InvalidCase("emptyDirectory", le16(0) + le16(1) + le16(0), .unknownFormat),
        InvalidCase(
            "reservedByteSet", Crafted.icon(images: [(16, 16, png16)]).replacing(at: 9, with: [1]), .icoBadDirectory),
        InvalidCase(
            "imageInsideDirectory", Crafted.icon(images: [(16, 16, png16)]).replacing(at: 18, with: le32(6)),
            .icoBadDirectory),
        InvalidCase(
            "zeroSizeImage", Crafted.icon(images: [(16, 16, png16)]).replacing(at: 14, with: le32(0)),
            .icoBadDirectory),
        InvalidCase("imagePastTheEnd", Array(Crafted.icon(images: [(16, 16, png16)]).dropLast()), .truncated),
        InvalidCase("directoryPastTheEnd", le16(0) + le16(1) + le16(3) + [UInt8](repeating: 0, count: 20), .truncated),
        InvalidCase(
            "overlappingImages",
            Array(Crafted.icon(images: [(16, 16, png16), (16, 16, png16)]).dropLast(png16.count))
                .replacing(at: 34, with: le32(38)),
            .icoBadDirectory),
        InvalidCase("pngWithBadCRC", Crafted.icon(images: [(16, 16, png16.flipping(at: 20))]), .icoBadImage),
        InvalidCase(
            "dibWithOddHeight",
            Crafted.icon(images: [(4, 4, Crafted.iconDIB().replacing(at: 8, with: le32(7)))]), .icoBadImage),
        InvalidCase(
            "dibWithBadHeaderSize",
            Crafted.icon(images: [(4, 4, Crafted.iconDIB().replacing(at: 0, with: le32(64)))]), .icoBadImage),
        InvalidCase(
            "dibMaskMissing",
            Crafted.icon(images: [(5, 3, Array(Crafted.iconDIB(width: 5, height: 3, bitCount: 8).dropLast(4)))]),
            .truncated),
        InvalidCase(
            "dibBomb",
            Crafted.icon(images: [
                (
                    4, 4,
                    Crafted.iconDIB().replacing(at: 4, with: le32(60_000))
                        .replacing(at: 8, with: le32(120_000))
                )
            ]), .pixelLimit),
    ]

    @Test(arguments: valid) func validIconIsAcceptedWithItsSize(_ item: ValidCase) { item.check() }
    @Test(arguments: invalid) func damagedIconIsRejectedWithItsReason(_ item: InvalidCase) { item.check() }

    @Test func everyPrefixOfACraftedCursorIsRejected() {
        let bytes = Crafted.icon(type: 2, images: [(4, 4, Crafted.iconDIB()), (16, 16, Self.png16)])
        for length in 6..<bytes.count {
            #expect(ImageValidator().validate(bytes[..<length]).rejection?.reason == .truncated, "\(length)")
        }
    }
}
