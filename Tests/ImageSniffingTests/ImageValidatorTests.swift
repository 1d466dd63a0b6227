import ImageSniffing
import Testing

@Suite struct ImageValidatorTests {
    static let notImages: [(String, [UInt8])] = [
        ("htmlServedAsPNG", ascii("<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head></html>")),
        ("json", ascii(#"{"error": "not found"}"#)),
        ("plainText", ascii("Service Unavailable")),
        ("empty", []),
        ("oneByte", [0x89]),
        ("zipFile", [0x50, 0x4B, 0x03, 0x04] + [UInt8](repeating: 0, count: 26)),
        ("pdf", ascii("%PDF-1.7\n")),
        ("mp4", Crafted.box("ftyp", ascii("isom") + be32(0) + ascii("mp41"))),
    ]

    @Test(arguments: notImages) func nonImageIsUnknownFormat(name: String, bytes: [UInt8]) {
        #expect(ImageValidator.sniff(bytes) == nil, "\(name)")
        let verdict = ImageValidator().validate(bytes)
        #expect(verdict.rejection?.reason == .unknownFormat, "\(name)")
        #expect(verdict.rejection?.format == nil)
    }

    static let sniffed: [(ImageFormat, [UInt8])] = [
        (.png, Crafted.png()), (.jpeg, Crafted.jpeg()), (.gif, Crafted.gif()), (.bmp, Crafted.bmp()),
        (.tiff, Crafted.tiff()), (.tiff, Crafted.tiff(bigEndian: true)),
        (.ico, Crafted.icon(images: [(4, 4, Crafted.iconDIB())])),
        (.cur, Crafted.icon(type: 2, images: [(4, 4, Crafted.iconDIB())])),
        (.webp, Crafted.webp([Crafted.vp8L(width: 2, height: 2)])),
        (.avif, Crafted.HEIF(brands: ["avif", "mif1"]).bytes()), (.heic, Crafted.HEIF().bytes()),
        (.svg, ascii("<svg></svg>")),
    ]

    @Test(arguments: sniffed) func sniffingNamesTheFormatFromThirtyTwoBytes(format: ImageFormat, bytes: [UInt8]) {
        #expect(ImageValidator.sniff(bytes.prefix(32)) == format)
        #expect(ImageValidator.sniff(ArraySlice(bytes)) == format)
    }

    @Test func sniffedTypeDisagreesWithADeclaredOne() {
        // A JPEG served as image/png: what Larder stores is the sniffed type.
        let format = ImageValidator.sniff(Crafted.jpeg())
        #expect(format?.mimeType == "image/jpeg")
        #expect(format != .png)
    }

    @Test(arguments: [
        (ImageFormat.png, "image/png"), (.jpeg, "image/jpeg"), (.gif, "image/gif"), (.bmp, "image/bmp"),
        (.tiff, "image/tiff"), (.ico, "image/vnd.microsoft.icon"), (.cur, "image/x-icon"), (.webp, "image/webp"),
        (.avif, "image/avif"), (.heic, "image/heic"), (.svg, "image/svg+xml"),
    ])
    func everyFormatHasItsCanonicalMIMEType(format: ImageFormat, mimeType: String) {
        #expect(format.mimeType == mimeType)
    }

    @Test func defaultLimitsAcceptAModernCameraAndRefuseABomb() {
        // One bit per pixel keeps the made image data small; the limit counts pixels, not bytes.
        let camera = Crafted.png(width: 9504, height: 6336, bitDepth: 1, colourType: 0)
        #expect(ImageValidator().validate(camera).info?.width == 9504)
        #expect(ImageValidator().validate(Crafted.png(width: 10_000, height: 10_000)).rejection?.reason == .pixelLimit)
    }

    @Test func limitsAreSettings() {
        let small = ImageValidator(limits: ImageValidationLimits(maxPixels: 100, maxDimension: 20))
        #expect(small.validate(Crafted.png(width: 10, height: 10)).info != nil)
        #expect(small.validate(Crafted.png(width: 11, height: 10)).rejection?.reason == .pixelLimit)
        #expect(small.validate(Crafted.png(width: 21, height: 1)).rejection?.reason == .dimensionLimit)
    }

    @Test func widthTimesHeightCannotOverflow() {
        // Without limits the pixel count fits, but the scanlines PNG's image data would need do not: a
        // refusal, not a trap.
        let unlimited = ImageValidator(limits: ImageValidationLimits(maxPixels: .max, maxDimension: .max))
        let verdict = unlimited.validate(Crafted.png(width: 0x7FFF_FFFF, height: 0x7FFF_FFFF))
        #expect(verdict.rejection?.reason == .pixelLimit)
        #expect(verdict.rejection?.detail.contains("overflow") == true)
    }

    @Test func rawBufferAndSliceGiveTheSameVerdict() {
        let bytes = [0, 0] + Crafted.gif()
        let fromSlice = ImageValidator().validate(bytes[2...])
        let fromBuffer = bytes.withUnsafeBytes { ImageValidator().validate(UnsafeRawBufferPointer(rebasing: $0[2...])) }
        #expect(fromSlice == fromBuffer)
        #expect(fromSlice.info == ImageInfo(format: .gif, width: 4, height: 3))
    }

    @Test func rejectionsNameTheirFormatAndDescribeThemselves() throws {
        let rejection = try #require(ImageValidator().validate(Array(Crafted.png().dropLast())).rejection)
        #expect(rejection.format == .png)
        #expect(rejection.description.hasPrefix("truncated: "))
        #expect(throws: ImageRejection.self) {
            try Array(Crafted.png().dropLast()).withUnsafeBytes { try ImageValidator().validateOrThrow($0) }
        }
    }
}
