// Every reason code the validators produce. They are part of the public contract: change none.
extension ImageRejection.Reason {
    /// The data ended where the structure needs more bytes, or an offset or length points past the
    /// end (a truncated download or a lying length field).
    public static let truncated = Self(rawValue: "truncated")
    /// The first bytes match no supported format (HTML, JSON, an unsupported image type, ...).
    public static let unknownFormat = Self(rawValue: "unknown-format")
    /// Width × height exceeds `ImageValidationLimits.maxPixels` (a decompression bomb guard).
    public static let pixelLimit = Self(rawValue: "pixel-limit")
    /// Width or height exceeds `ImageValidationLimits.maxDimension`.
    public static let dimensionLimit = Self(rawValue: "dimension-limit")
    /// A width or height of zero.
    public static let zeroDimension = Self(rawValue: "zero-dimension")
    /// Bytes follow the end marker of a format that refuses them (PNG, GIF, WebP).
    public static let trailingData = Self(rawValue: "trailing-data")
    /// The payload is SVG and the validator was created without `allowSVG`.
    public static let svgNotAllowed = Self(rawValue: "svg-not-allowed")

    /// The first chunk is not `IHDR`.
    public static let pngIHDRNotFirst = Self(rawValue: "png.ihdr-not-first")
    /// An `IHDR` field is out of range (length, bit depth and colour type, methods).
    public static let pngBadIHDR = Self(rawValue: "png.bad-ihdr")
    /// A chunk's CRC-32 does not match its type and data.
    public static let pngCRCMismatch = Self(rawValue: "png.crc-mismatch")
    /// A chunk type is not four ASCII letters, or a length exceeds 2³¹−1.
    public static let pngBadChunk = Self(rawValue: "png.bad-chunk")
    /// A palette image without `PLTE`, a `PLTE` of a bad length or in a grey image.
    public static let pngBadPalette = Self(rawValue: "png.bad-palette")
    /// No `IDAT` before `IEND`.
    public static let pngMissingIDAT = Self(rawValue: "png.missing-idat")
    /// `IDAT` chunks separated by another chunk.
    public static let pngIDATNotContiguous = Self(rawValue: "png.idat-not-contiguous")
    /// A second `IHDR`, or `IEND` with data.
    public static let pngMisplacedChunk = Self(rawValue: "png.misplaced-chunk")
    /// The `IDAT` stream does not inflate to exactly the scanlines `IHDR` describes: corrupt or cut short
    /// zlib data, a wrong Adler-32, more or fewer bytes than the geometry, a bad filter type, or bytes
    /// after the stream's end.
    public static let pngBadImageData = Self(rawValue: "png.bad-idat")

    /// Something other than a marker where a marker must be, or a marker not allowed there.
    public static let jpegBadMarker = Self(rawValue: "jpeg.bad-marker")
    /// A segment length below 2, or not matching its content.
    public static let jpegBadSegmentLength = Self(rawValue: "jpeg.bad-segment-length")
    /// A frame header (SOFn) with bad precision or components.
    public static let jpegBadFrame = Self(rawValue: "jpeg.bad-frame")
    /// More than one frame header.
    public static let jpegMultipleFrames = Self(rawValue: "jpeg.multiple-frames")
    /// A scan header (SOS) that is malformed or comes before the frame header.
    public static let jpegBadScan = Self(rawValue: "jpeg.bad-scan")
    /// `EOI` without a frame header and a scan before it.
    public static let jpegMissingScan = Self(rawValue: "jpeg.missing-scan")
    /// The entropy-coded data runs to the end of the bytes without an `EOI` marker.
    public static let jpegMissingEOI = Self(rawValue: "jpeg.missing-eoi")

    /// An LZW minimum code size outside 2...8.
    public static let gifBadLZWCodeSize = Self(rawValue: "gif.bad-lzw-code-size")
    /// A byte that introduces no block (image, extension or trailer).
    public static let gifBadBlock = Self(rawValue: "gif.bad-block")
    /// A trailer without any image before it.
    public static let gifMissingImage = Self(rawValue: "gif.missing-image")

    /// A DIB header size other than 12, 40, 52, 56, 108 or 124.
    public static let bmpBadHeaderSize = Self(rawValue: "bmp.bad-header-size")
    /// Planes not 1, a bit depth not allowed for the compression, or an unknown compression.
    public static let bmpBadFormat = Self(rawValue: "bmp.bad-format")
    /// The pixel data offset points inside the headers or colour table.
    public static let bmpBadOffset = Self(rawValue: "bmp.bad-offset")

    /// A BigTIFF (version 43) file, which is not supported.
    public static let tiffUnsupported = Self(rawValue: "tiff.unsupported")
    /// The IFD chain visits an IFD twice.
    public static let tiffIFDLoop = Self(rawValue: "tiff.ifd-loop")
    /// An IFD offset that is zero, odd-sized or inside the header, or an entry with a bad type.
    public static let tiffBadIFD = Self(rawValue: "tiff.bad-ifd")
    /// ImageWidth, ImageLength, or the strip or tile offsets and byte counts are missing or disagree.
    public static let tiffMissingTag = Self(rawValue: "tiff.missing-tag")

    /// A reserved field that is not zero, or an empty directory.
    public static let icoBadDirectory = Self(rawValue: "ico.bad-directory")
    /// An icon image that is neither a valid PNG nor a valid DIB.
    public static let icoBadImage = Self(rawValue: "ico.bad-image")

    /// The RIFF size disagrees with the data, or the form type is not `WEBP`.
    public static let webpBadRIFF = Self(rawValue: "webp.bad-riff")
    /// A chunk out of place (no image chunk first, VP8X without an image or animation).
    public static let webpBadChunk = Self(rawValue: "webp.bad-chunk")
    /// A VP8 chunk that is not a key frame or lacks the start code.
    public static let webpBadVP8 = Self(rawValue: "webp.bad-vp8")
    /// A VP8L chunk without the 0x2f signature or with a non-zero version.
    public static let webpBadVP8L = Self(rawValue: "webp.bad-vp8l")
    /// A VP8X chunk with a bad size or reserved bits set.
    public static let webpBadVP8X = Self(rawValue: "webp.bad-vp8x")

    /// A box size smaller than its header.
    public static let heifBadBox = Self(rawValue: "heif.bad-box")
    /// The first box is not `ftyp`, or no brand names AVIF or HEIF.
    public static let heifBadBrand = Self(rawValue: "heif.bad-brand")
    /// No `meta` box, or one without `pitm`, `iinf`, `iloc` or the primary item in them.
    public static let heifMissingPrimaryItem = Self(rawValue: "heif.missing-primary-item")
    /// No `ispe` property associated with the primary item.
    public static let heifMissingDimensions = Self(rawValue: "heif.missing-dimensions")

    /// SVG bytes that are not valid UTF-8.
    public static let svgBadEncoding = Self(rawValue: "svg.bad-encoding")
    /// SVG text that does not end with `</svg>` (or a self-closed root).
    public static let svgMissingEndTag = Self(rawValue: "svg.missing-end-tag")
}
