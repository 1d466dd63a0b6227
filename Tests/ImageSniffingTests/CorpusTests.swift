import ImageSniffing
import Testing

/// The Pillow-made corpus: every file accepted with its size, every damaged copy refused.
@Suite(.enabled(if: ImageCorpus.isAvailable, "needs python3 with Pillow: pip install Pillow"))
struct CorpusTests {
    static let images = ImageCorpus.images ?? []
    let validator = ImageValidator()

    @Test func corpusCoversEveryFormatPillowWrites() {
        let formats = Set(Self.images.map(\.format))
        #expect(formats.isSuperset(of: [.png, .jpeg, .gif, .bmp, .tiff, .ico, .webp]), "\(ImageCorpus.problem)")
        #expect(Self.images.count >= 30)
    }

    @Test(arguments: images)
    func validFileIsAcceptedWithItsSize(image: CorpusImage) {
        ValidCase(image.name, image.bytes, image.format, image.width, image.height).check()
    }

    /// Every prefix of small files, and a seeded sample of prefixes of larger ones.
    @Test(arguments: images)
    func everyTruncationIsRejected(image: CorpusImage) {
        var generator = SeededGenerator(seed: UInt64(image.bytes.count))
        // Pillow leaves a few unreferenced bytes after the last page of a multi-page TIFF; TIFF
        // tolerates trailing bytes, so cutting those is not damage.
        let end = image.bytes.count - (image.format == .tiff ? 16 : 0)
        let lengths =
            end <= 8192
            ? Array(0..<end)
            : Array(0..<64) + (0..<300).map { _ in Int.random(in: 64..<end, using: &generator) }
                + Array((end - 64)..<end)
        var wrong: [String] = []
        for length in lengths {
            let verdict = validator.validate(image.bytes[..<length])
            let reason = verdict.rejection?.reason
            // A HEIF file cut exactly after `ftyp` has lost its meta box: that is its reason.
            let heifMeta = reason == .heifMissingPrimaryItem && (image.format == .avif || image.format == .heic)
            let expected =
                reason == .truncated || reason == .jpegMissingEOI || heifMeta
                || (reason == .unknownFormat && length < 12)
            if !expected { wrong.append("\(length): \(verdict)") }
        }
        #expect(wrong.isEmpty, "\(image.name), \(wrong.count) of \(lengths.count) prefixes: \(wrong.prefix(5))")
    }

    @Test(arguments: images)
    func wrongMagicIsUnknownFormat(image: CorpusImage) {
        let magicOffset = image.format == .avif || image.format == .heic ? 4 : 0
        let verdict = validator.validate(image.bytes.flipping(at: magicOffset))
        #expect(verdict.rejection?.reason == .unknownFormat, "\(verdict)")
    }

    @Test(arguments: images.filter { [.png, .gif, .webp, .jpeg].contains($0.format) })
    func appendedBytesFollowTheFormatsPolicy(image: CorpusImage) {
        let verdict = validator.validate(image.bytes + ascii("<html>polyglot</html>"))
        if image.format == .jpeg {
            #expect(verdict.info?.format == .jpeg, "bytes after EOI are accepted (MPF): \(verdict)")
        } else {
            #expect(verdict.rejection?.reason == .trailingData, "\(verdict)")
        }
    }

    @Test(arguments: images.filter { $0.format == .png })
    func everyFlippedChunkByteIsACRCMismatch(image: CorpusImage) {
        var offset = 8
        var wrong: [String] = []
        while offset < image.bytes.count {
            let length = image.bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            // Data and CRC bytes; sampled in big chunks to keep the suite fast.
            let step = max(1, length / 64)
            for target in stride(from: offset + 8, to: offset + 12 + length, by: step) {
                let verdict = validator.validate(image.bytes.flipping(at: target, mask: 0x10))
                if verdict.rejection?.reason != .pngCRCMismatch { wrong.append("\(target): \(verdict)") }
            }
            offset += 12 + length
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
    }

    @Test(arguments: images.filter { $0.format == .png })
    func chunkLengthPastTheEndIsTruncated(image: CorpusImage) {
        let idat = image.bytes.offset(of: ascii("IDAT"))! - 4
        let verdict = validator.validate(image.bytes.replacing(at: idat, with: be32(0x7FFF_FF00)))
        #expect(verdict.rejection?.reason == .truncated, "\(verdict)")
    }

    @Test(arguments: images)
    func tightLimitsRefuseTheSameFile(image: CorpusImage) {
        let limits = ImageValidationLimits(maxPixels: image.width * image.height - 1)
        let verdict = ImageValidator(limits: limits).validate(image.bytes)
        #expect(verdict.rejection?.reason == .pixelLimit, "\(verdict)")
    }
}

/// A small deterministic generator (SplitMix64), so sampled offsets are the same on every run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
