/// Validates ICO and CUR files: the `ICONDIR`, and every image in it as a PNG or an icon DIB.
///
/// Follows Microsoft's [Icons](https://learn.microsoft.com/previous-versions/ms997538(v=msdn.10))
/// layout: a 6-byte header (reserved 0, type 1 or 2, count), 16-byte entries, and each image's bytes
/// within the file, not overlapping another's (which also keeps the work linear). An image starting
/// with the PNG signature is validated as PNG; any other as a DIB whose height counts the colour
/// rows and the AND-mask rows. The reported size is the largest image's, from its own header.
enum ICOValidator {
    /// - Parameter inflating: whether embedded PNG images have their image data inflated and checked.
    static func validate(
        _ bytes: UnsafeRawBufferPointer, format: ImageFormat, limits: ImageValidationLimits, inflating: Bool = true
    ) throws(ImageRejection) -> ImageInfo {
        var reader = ByteReader(bytes, format: format)
        try reader.skip(4)  // reserved 0 and type, checked by sniffing
        let count = Int(try reader.readUInt16(.littleEndian))
        guard count > 0 else { throw reader.rejection(.icoBadDirectory, "empty directory") }
        try reader.require(count * 16, "a directory of \(count) entries")
        let directoryEnd = 6 + count * 16

        var largest: (width: Int, height: Int)?
        var imageBytes = 0
        for index in 0..<count {
            try reader.skip(3)  // width, height, colour count: the image's own header is authoritative
            guard try reader.readUInt8() == 0 else {
                throw reader.rejection(.icoBadDirectory, "entry \(index) has a non-zero reserved byte")
            }
            try reader.skip(4)  // planes and bit count, or the cursor's hotspot
            let size = Int(try reader.readUInt32(.littleEndian))
            let offset = Int(try reader.readUInt32(.littleEndian))
            guard offset >= directoryEnd, size > 0 else {
                throw reader.rejection(.icoBadDirectory, "entry \(index): \(size) bytes at offset \(offset)")
            }
            guard offset <= bytes.count, size <= bytes.count - offset else {
                throw reader.rejection(.truncated, "entry \(index): \(size) bytes at offset \(offset) past the end")
            }
            imageBytes += size
            guard imageBytes <= bytes.count - directoryEnd else {
                throw reader.rejection(.icoBadDirectory, "images overlap")
            }
            let image = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + size])
            let info = try validateImage(image, index: index, format: format, limits: limits, inflating: inflating)
            if largest.map({ info.width * info.height > $0.width * $0.height }) ?? true {
                largest = (info.width, info.height)
            }
        }
        return ImageInfo(format: format, width: largest!.width, height: largest!.height)
    }

    private static func validateImage(
        _ image: UnsafeRawBufferPointer, index: Int, format: ImageFormat, limits: ImageValidationLimits,
        inflating: Bool
    ) throws(ImageRejection) -> ImageInfo {
        do throws(ImageRejection) {
            if ByteReader(image, format: format).peek(matches: PNGValidator.signature) {
                return try PNGValidator.validate(image, limits: limits, inflating: inflating)
            }
            return try validateDIB(image, format: format, limits: limits)
        } catch {
            // Truncation and limits keep their own codes; everything else is a bad icon image.
            let keep: [ImageRejection.Reason] = [.truncated, .pixelLimit, .dimensionLimit, .zeroDimension]
            let reason = keep.contains(error.reason) ? error.reason : .icoBadImage
            throw ImageRejection(format: format, reason: reason, detail: "image \(index): \(error.description)")
        }
    }

    private static func validateDIB(_ image: UnsafeRawBufferPointer, format: ImageFormat, limits: ImageValidationLimits)
        throws(ImageRejection) -> ImageInfo
    {
        var reader = ByteReader(image, format: format)
        let header = try DIBHeader(&reader)
        guard header.height % 2 == 0, !header.topDown, let _ = header.uncompressedSize(rows: 0) else {
            throw reader.rejection(.icoBadImage, "icon DIB must be bottom-up, uncompressed, with an even height")
        }
        let rows = header.height / 2
        try limits.check(width: header.width, height: rows, format: format)
        let colour = header.uncompressedSize(rows: rows) ?? 0
        // 32-bit icons carry alpha; some writers omit their AND mask.
        let mask = header.bitCount == 32 ? 0 : DIBHeader.pixelBytes(width: header.width, bits: 1, rows: rows)
        let available = reader.remaining - header.tablesSize
        guard available >= 0, colour <= available, mask <= available - colour else {
            throw reader.rejection(
                .truncated, "icon DIB needs \(colour) + \(mask) bytes after its tables, \(max(available, 0)) present")
        }
        return ImageInfo(format: format, width: header.width, height: rows)
    }
}
