import Testing
import Zlib

@testable import ImageSniffing

/// PNG image data (`PNGImageData`): the `IDAT` stream inflates to exactly the scanlines of the header,
/// with a valid filter type on every row; corrupt, short, long and trailing streams are refused.
@Suite struct PNGImageDataTests {
    /// The scanlines of the default 3 × 2 RGB header: two rows of a filter byte and 9 sample bytes.
    static let rows = [UInt8](repeating: 0, count: 20)

    /// A 3 × 2 RGB PNG's image data split over two `IDAT` chunks in the middle of the zlib stream.
    static func split(interlace: UInt8 = 0) -> [[UInt8]] {
        let length = Crafted.scanlineLength(width: 3, height: 2, bitDepth: 8, colourType: 2, interlace: interlace) ?? 0
        let stream = Crafted.zlib([UInt8](repeating: 0, count: length))
        let middle = stream.count / 2
        return [Crafted.pngChunk("IDAT", Array(stream[..<middle])), Crafted.pngChunk("IDAT", Array(stream[middle...]))]
    }

    /// A 3 × 2 RGB PNG whose one `IDAT` carries `data`.
    static func png(idat data: [UInt8], header: [UInt8] = Crafted.ihdr()) -> [UInt8] {
        Crafted.png([header, Crafted.pngChunk("IDAT", data), Crafted.iend])
    }

    static func rejection(_ bytes: [UInt8]) -> ImageRejection? { ImageValidator().validate(bytes).rejection }

    @Test(
        arguments: [
            // (width, height, bit depth, colour type, interlace)
            (3, 2, 8, 2, 0), (1, 1, 1, 0, 0), (7, 3, 1, 0, 0), (9, 1, 2, 3, 0), (5, 5, 16, 6, 0), (13, 4, 4, 0, 0),
            (1, 1, 8, 2, 1), (2, 2, 8, 2, 1), (3, 2, 8, 2, 1), (8, 8, 1, 0, 1), (9, 9, 16, 4, 1), (33, 17, 2, 3, 1),
        ] as [(Int, Int, UInt8, UInt8, UInt8)])
    func exactlyTheHeaderGeometryIsAccepted(width: Int, height: Int, depth: UInt8, colour: UInt8, interlace: UInt8)
        throws
    {
        let header = Crafted.ihdr(
            width: width, height: height, bitDepth: depth, colourType: colour, interlace: interlace)
        let palette = colour == 3 ? [Crafted.pngChunk("PLTE", [0, 0, 0])] : []
        let length = try #require(
            Crafted.scanlineLength(
                width: width, height: height, bitDepth: depth, colourType: colour, interlace: interlace))
        func image(_ count: Int) -> [UInt8] {
            Crafted.png(
                [header] + palette + [
                    Crafted.pngChunk("IDAT", Crafted.zlib([UInt8](repeating: 0, count: count))),
                    Crafted.iend,
                ])
        }
        #expect(ImageValidator().validate(image(length)).info == ImageInfo(format: .png, width: width, height: height))
        #expect(Self.rejection(image(length - 1))?.reason == .pngBadImageData, "one byte short")
        #expect(Self.rejection(image(length + 1))?.reason == .pngBadImageData, "one byte long")
    }

    @Test func aStreamSplitOverManyChunksIsAccepted() {
        let stream = Crafted.zlib(Self.rows)
        let chunks = stream.map { Crafted.pngChunk("IDAT", [$0]) }
        #expect(ImageValidator().validate(Crafted.png([Crafted.ihdr()] + chunks + [Crafted.iend])).info != nil)
        #expect(ImageValidator().validate(Crafted.png([Crafted.ihdr()] + Self.split() + [Crafted.iend])).info != nil)
    }

    @Test(arguments: 0...4 as ClosedRange<UInt8>)
    func everyFilterTypeOfTheStandardIsAccepted(filter: UInt8) {
        var rows = Self.rows
        rows[0] = filter
        rows[10] = filter
        #expect(ImageValidator().validate(Self.png(idat: Crafted.zlib(rows))).info != nil)
    }

    @Test(arguments: [(0, 5), (10, 5), (10, 255)])
    func anUnknownFilterTypeIsRefused(row: Int, filter: UInt8) throws {
        var rows = Self.rows
        rows[row] = filter
        let rejection = try #require(Self.rejection(Self.png(idat: Crafted.zlib(rows))))
        #expect(rejection.reason == .pngBadImageData)
        #expect(rejection.detail.contains("filter type \(filter)"))
    }

    @Test func everyBitFlipThatChangesTheDataIsRefused() {
        // The chunk's CRC is recomputed each time: only the zlib layer can catch these. A flip in the
        // padding bits after the last deflate block changes nothing inflate reads, so it may pass.
        let stream = Crafted.zlib(Self.rows)
        var wrong: [String] = []
        for index in stream.indices {
            for bit in 0..<8 {
                var damaged = stream
                damaged[index] ^= UInt8(1 << bit)
                let refused = Self.rejection(Self.png(idat: damaged))?.reason == .pngBadImageData
                let unchanged = (try? Inflater.inflate(damaged, format: .zlib)) == Self.rows
                if refused == unchanged { wrong.append("byte \(index) bit \(bit): refused \(refused)") }
            }
        }
        #expect(wrong.isEmpty, "\(wrong)")
    }

    @Test func aTruncatedStreamIsRefused() throws {
        let stream = Crafted.zlib(Self.rows)
        for cut in [1, 4, stream.count / 2, stream.count - 2] {
            let rejection = try #require(Self.rejection(Self.png(idat: Array(stream.dropLast(cut)))))
            #expect(rejection.reason == .pngBadImageData, "\(cut) bytes cut")
        }
    }

    @Test func bytesAfterTheStreamAreRefused() throws {
        let stream = Crafted.zlib(Self.rows)
        #expect(Self.rejection(Self.png(idat: stream + [0, 0]))?.reason == .pngBadImageData)
        let twice = Crafted.png([Crafted.ihdr(), Crafted.pngChunk("IDAT", stream), Crafted.pngChunk("IDAT", stream)])
        #expect(Self.rejection(twice + Crafted.iend)?.reason == .pngBadImageData)
    }

    @Test func notZlibDataIsRefused() {
        #expect(Self.rejection(Self.png(idat: []))?.reason == .pngBadImageData)
        #expect(Self.rejection(Self.png(idat: Array("plain text, not zlib".utf8)))?.reason == .pngBadImageData)
    }

    @Test func aBombIsStoppedAtTheGeometry() throws {
        // A 1 × 1 header over a stream of 16 MiB: refused once the fifth byte comes out.
        let header = Crafted.ihdr(width: 1, height: 1)
        let rejection = try #require(
            Self.rejection(Self.png(idat: Crafted.zlib([UInt8](repeating: 0, count: 16 << 20)), header: header)))
        #expect(rejection.reason == .pngBadImageData)
        #expect(rejection.detail.contains("past the 4 bytes"))
    }

    @Test func aLargeImageIsInflatedInSlices() throws {
        // 16 MB of scanlines from a few KiB of input, inflated through a buffer of 32 KiB: accepted.
        let png = Crafted.png(width: 2000, height: 2000, bitDepth: 8, colourType: 6)
        #expect(png.count < 64 << 10)
        #expect(ImageValidator().validate(png).info == ImageInfo(format: .png, width: 2000, height: 2000))
    }
}

/// `ImageValidator.Depth`: admission inflates, reads from the store check the structure only.
@Suite struct ImageValidatorDepthTests {
    /// A PNG whose chunks are sound (CRCs recomputed) but whose image data is not zlib.
    static let badData = PNGImageDataTests.png(idat: Array("not zlib".utf8))

    @Test func aStructureValidationDoesNotInflate() {
        #expect(ImageValidator().validate(Self.badData).rejection?.reason == .pngBadImageData)
        #expect(ImageValidator(depth: .structure).validate(Self.badData).info?.width == 3)
        // The structure is still checked at that depth.
        #expect(
            ImageValidator(depth: .structure).validate(Array(Self.badData.dropLast())).rejection?.reason == .truncated)
    }

    @Test func anIconsPNGImageIsInflatedAtFullDepthOnly() {
        let icon = Crafted.icon(images: [(3, 2, Self.badData)])
        #expect(ImageValidator().validate(icon).rejection?.reason == .icoBadImage)
        #expect(ImageValidator(depth: .structure).validate(icon).info != nil)
        #expect(ImageValidator().validate(Crafted.icon(images: [(3, 2, Crafted.png())])).info != nil)
    }
}
