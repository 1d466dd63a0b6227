import ImageSniffing
import Testing

@Suite struct JPEGValidatorTests {
    static let soi: [UInt8] = [0xFF, 0xD8]
    static let eoi: [UInt8] = [0xFF, 0xD9]
    static func jpeg(_ segments: [[UInt8]], entropy: [UInt8] = Crafted.entropyCoded) -> [UInt8] {
        soi + segments.joined() + entropy + eoi
    }

    static let valid: [ValidCase] = [
        ValidCase("baseline", Crafted.jpeg(), .jpeg, 5, 4),
        ValidCase("progressive", Crafted.jpeg(width: 640, height: 480, progressive: true), .jpeg, 640, 480),
        ValidCase(
            "extendedSequential12Bit",
            jpeg([Crafted.sof(0xC1, width: 7, height: 3, precision: 12), Crafted.dht, Crafted.sos()]), .jpeg, 7, 3),
        ValidCase(
            "lossless16Bit",
            jpeg([Crafted.sof(0xC3, width: 2, height: 9, components: 1, precision: 16), Crafted.sos(components: 1)]),
            .jpeg, 2, 9),
        ValidCase(
            "grey", jpeg([Crafted.sof(width: 1, height: 1, components: 1), Crafted.sos(components: 1)]), .jpeg, 1, 1),
        ValidCase(
            "restartIntervalAndComment",
            jpeg([
                Crafted.jpegSegment(0xDD, be16(1)), Crafted.jpegSegment(0xFE, ascii("hi")),
                Crafted.sof(width: 8, height: 8), Crafted.sos(),
            ]), .jpeg, 8, 8),
        ValidCase("fillBytesBeforeMarkers", soi + [0xFF, 0xFF] + Array(Crafted.jpeg().dropFirst(2)), .jpeg, 5, 4),
        ValidCase("multiPictureTrailer", Crafted.jpeg() + Crafted.jpeg(width: 2, height: 2), .jpeg, 5, 4),
        ValidCase(
            "emptyEntropyData", jpeg([Crafted.sof(width: 3, height: 3), Crafted.sos()], entropy: []), .jpeg, 3, 3),
    ]

    static let invalid: [InvalidCase] = [
        InvalidCase("noEOI", Array(Crafted.jpeg().dropLast(2)), .jpegMissingEOI),
        InvalidCase("cutInsideEntropyData", Array(Crafted.jpeg().dropLast(5)), .jpegMissingEOI),
        InvalidCase("noScan", soi + Crafted.sof(width: 3, height: 3) + eoi, .jpegMissingScan),
        InvalidCase("noFrame", soi + Crafted.dqt + eoi, .jpegMissingScan),
        InvalidCase("scanBeforeFrame", jpeg([Crafted.sos(), Crafted.sof(width: 3, height: 3)]), .jpegBadScan),
        InvalidCase(
            "twoFrames", jpeg([Crafted.sof(width: 3, height: 3), Crafted.sof(width: 3, height: 3), Crafted.sos()]),
            .jpegMultipleFrames),
        InvalidCase("segmentLengthOne", soi + [0xFF, 0xE0, 0x00, 0x01] + eoi, .jpegBadSegmentLength),
        InvalidCase("segmentLengthPastTheEnd", soi + [0xFF, 0xE1, 0xFF, 0xF0, 1, 2, 3], .truncated),
        InvalidCase(
            "frameLengthDisagrees",
            soi + Crafted.jpegSegment(0xC0, [8] + be16(3) + be16(3) + [3, 1, 0x11, 0]) + eoi, .jpegBadSegmentLength),
        InvalidCase("zeroWidth", jpeg([Crafted.sof(width: 0, height: 3), Crafted.sos()]), .zeroDimension),
        InvalidCase("heightFromDNL", jpeg([Crafted.sof(width: 3, height: 0), Crafted.sos()]), .zeroDimension),
        InvalidCase("bomb", jpeg([Crafted.sof(width: 65_535, height: 65_535), Crafted.sos()]), .pixelLimit),
        InvalidCase(
            "fiveComponents", jpeg([Crafted.sof(width: 3, height: 3, components: 5), Crafted.sos()]), .jpegBadFrame),
        InvalidCase(
            "precisionSeven", jpeg([Crafted.sof(width: 3, height: 3, precision: 7), Crafted.sos()]), .jpegBadFrame),
        InvalidCase(
            "zeroSampling",
            jpeg([Crafted.jpegSegment(0xC0, [8] + be16(3) + be16(3) + [1, 1, 0x01, 0]), Crafted.sos(components: 1)]),
            .jpegBadFrame),
        InvalidCase(
            "scanOfMoreComponentsThanFrame",
            jpeg([Crafted.sof(width: 3, height: 3, components: 1), Crafted.sos(components: 3)]), .jpegBadScan),
        InvalidCase("garbageBetweenSegments", soi + Crafted.dqt + [0x00] + eoi, .jpegBadMarker),
        InvalidCase("secondSOI", soi + soi + eoi, .jpegBadMarker),
        InvalidCase("soiOnly", soi + [0xFF], .truncated),
    ]

    @Test(arguments: valid) func validJPEGIsAcceptedWithItsSize(_ item: ValidCase) { item.check() }
    @Test(arguments: invalid) func damagedJPEGIsRejectedWithItsReason(_ item: InvalidCase) { item.check() }

    @Test func everyPrefixOfACraftedJPEGIsRejected() {
        let bytes = Crafted.jpeg(progressive: true)
        for length in 3..<bytes.count {
            let reason = ImageValidator().validate(bytes[..<length]).rejection?.reason
            #expect(reason == .truncated || reason == .jpegMissingEOI, "\(length)")
        }
    }

    /// Entropy-coded data is searched for 0xFF a vector at a time (`memchr`); markers at any alignment must be
    /// seen.
    @Test(arguments: 0..<17)
    func markerAfterEntropyDataIsFoundAtAnyAlignment(shift: Int) {
        let segments = [Crafted.sof(width: 3, height: 3), Crafted.sos()]
        let stuffed = [UInt8](repeating: 0x11, count: shift) + [0xFF, 0x00] + [UInt8](repeating: 0x22, count: 20)
        #expect(ImageValidator().validate(Self.jpeg(segments, entropy: stuffed)).info?.width == 3)
        let plain = [UInt8](repeating: 0x33, count: shift + 9)
        #expect(ImageValidator().validate(Self.jpeg(segments, entropy: plain)).info?.width == 3)
        let cut = Self.jpeg(segments, entropy: plain + [0xFF, 0xD0] + plain).dropLast(2)
        #expect(ImageValidator().validate(Array(cut)).rejection?.reason == .jpegMissingEOI)
        let garbage = Self.jpeg(segments, entropy: plain + [0xFF, 0x01, 0x00] + plain)
        #expect(ImageValidator().validate(garbage).rejection?.reason == .jpegBadMarker)
        // Fill bytes before the EOI are passed over; a lone 0xFF as the very last byte is no marker.
        let filled = Self.jpeg(segments, entropy: plain + [0xFF, 0xFF, 0xFF])
        #expect(ImageValidator().validate(filled).info?.width == 3)
        let endsInFF = Array(Self.jpeg(segments, entropy: plain).dropLast(2)) + [0xFF]
        #expect(ImageValidator().validate(endsInFF).rejection?.reason == .jpegMissingEOI)
    }
}
