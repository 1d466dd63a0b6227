import ImageSniffing
import Testing

@Suite struct WebPValidatorTests {
    static let alph = Crafted.riffChunk("ALPH", [0, 1, 2])
    static let anim = Crafted.riffChunk("ANIM", le32(0) + le16(0))

    static let valid: [ValidCase] = [
        ValidCase("lossless", Crafted.webp([Crafted.vp8L(width: 17, height: 13)]), .webp, 17, 13),
        ValidCase("lossy", Crafted.webp([Crafted.vp8(width: 30, height: 20)]), .webp, 30, 20),
        ValidCase(
            "extendedWithAlpha",
            Crafted.webp([Crafted.vp8X(width: 9, height: 7, flags: 0x10), alph, Crafted.vp8(width: 9, height: 7)]),
            .webp, 9, 7),
        ValidCase(
            "extendedWithMetadata",
            Crafted.webp([
                Crafted.vp8X(width: 4, height: 4, flags: 0x08), Crafted.vp8L(width: 4, height: 4),
                Crafted.riffChunk("EXIF", [1, 2, 3, 4, 5]),
            ]), .webp, 4, 4),
        ValidCase(
            "animated",
            Crafted.webp([
                Crafted.vp8X(width: 12, height: 10, flags: 0x02), anim,
                Crafted.anmf(width: 12, height: 10, image: Crafted.vp8L(width: 12, height: 10)),
                Crafted.anmf(x: 2, y: 4, width: 4, height: 6, image: Crafted.vp8(width: 4, height: 6)),
            ]),
            .webp, 12, 10),
        ValidCase("largestCanvas", Crafted.webp([Crafted.vp8L(width: 16384, height: 4096)]), .webp, 16384, 4096),
    ]

    static let invalid: [InvalidCase] = [
        InvalidCase(
            "riffSizeTooLarge", Crafted.webp([Crafted.vp8L(width: 2, height: 2)]).replacing(at: 4, with: le32(500)),
            .truncated),
        InvalidCase("riffSizeTooSmall", Crafted.webp([Crafted.vp8L(width: 2, height: 2)]) + [0, 0], .trailingData),
        InvalidCase("riffSizeBelowForm", ascii("RIFF") + le32(2) + ascii("WEBP"), .webpBadRIFF),
        InvalidCase(
            "chunkPastRIFFEnd",
            Crafted.webp([Crafted.vp8L(width: 2, height: 2)]).replacing(at: 16, with: le32(400)), .truncated),
        InvalidCase("interFrame", Crafted.webp([Crafted.vp8(width: 3, height: 3, keyFrame: false)]), .webpBadVP8),
        InvalidCase(
            "noStartCode", Crafted.webp([Crafted.vp8(width: 3, height: 3, startCode: [1, 2, 3])]), .webpBadVP8),
        InvalidCase("vp8ZeroWidth", Crafted.webp([Crafted.vp8(width: 0, height: 3)]), .zeroDimension),
        InvalidCase("vp8lSignature", Crafted.webp([Crafted.vp8L(width: 2, height: 2, signature: 0x2E)]), .webpBadVP8L),
        InvalidCase("vp8lVersion", Crafted.webp([Crafted.vp8L(width: 2, height: 2, version: 1)]), .webpBadVP8L),
        InvalidCase("alphaFirst", Crafted.webp([alph, Crafted.vp8L(width: 2, height: 2)]), .webpBadChunk),
        InvalidCase(
            "canvasDisagrees",
            Crafted.webp([Crafted.vp8X(width: 9, height: 7), Crafted.vp8L(width: 9, height: 8)]), .webpBadVP8X),
        InvalidCase("extendedWithoutImage", Crafted.webp([Crafted.vp8X(width: 9, height: 7), alph]), .webpBadChunk),
        InvalidCase(
            "animationWithoutFrames", Crafted.webp([Crafted.vp8X(width: 9, height: 7, flags: 0x02), anim]),
            .webpBadChunk),
        InvalidCase(
            "frameOutsideCanvas",
            Crafted.webp([
                Crafted.vp8X(width: 4, height: 4, flags: 0x02), anim,
                Crafted.anmf(x: 2, width: 4, height: 4, image: Crafted.vp8L(width: 4, height: 4)),
            ]),
            .webpBadChunk),
        InvalidCase(
            "shortVP8X", Crafted.webp([Crafted.riffChunk("VP8X", [0, 0, 0, 0]), Crafted.vp8L(width: 1, height: 1)]),
            .webpBadVP8X),
        InvalidCase("bomb", Crafted.webp([Crafted.vp8X(width: 60_000, height: 60_000)]), .pixelLimit),
        InvalidCase("riffButNotWebP", ascii("RIFF") + le32(4) + ascii("WAVE"), .unknownFormat),
    ]

    @Test(arguments: valid) func validWebPIsAcceptedWithItsSize(_ item: ValidCase) { item.check() }
    @Test(arguments: invalid) func damagedWebPIsRejectedWithItsReason(_ item: InvalidCase) { item.check() }

    @Test func everyPrefixOfACraftedAnimationIsTruncated() {
        let bytes = Self.valid[4].bytes
        for length in 12..<bytes.count {
            #expect(ImageValidator().validate(bytes[..<length]).rejection?.reason == .truncated, "\(length)")
        }
    }
}
