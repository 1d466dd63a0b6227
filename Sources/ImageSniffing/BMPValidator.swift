/// Validates BMP files: the `BITMAPFILEHEADER`, the DIB header, and that the pixels are all there.
///
/// The file header's size and pixel offset are checked against the data; the DIB header's fields
/// (see `DIBHeader`) against each other; uncompressed pixel data must be present in full
/// (rows padded to 32 bits × |height|), compressed data as large as `biSizeImage` says, and no
/// `biSizeImage` may claim more bytes than follow the pixel offset, nor a resolution be negative. A negative
/// height (top-down rows) is accepted for uncompressed bitmaps. Trailing bytes are tolerated:
/// writers pad files and the file header's size field is the reliable end.
enum BMPValidator {
    static var dibHeaderSizes: [UInt32] { DIBHeader.sizes }

    static func validate(_ bytes: UnsafeRawBufferPointer, limits: ImageValidationLimits) throws(ImageRejection)
        -> ImageInfo
    {
        var reader = ByteReader(bytes, format: .bmp)
        try reader.skip(2)  // "BM", checked by sniffing
        let fileSize = Int(try reader.readUInt32(.littleEndian))
        try reader.skip(4)  // reserved
        let pixelOffset = Int(try reader.readUInt32(.littleEndian))
        guard fileSize <= bytes.count else {
            throw reader.rejection(.truncated, "file header says \(fileSize) bytes, \(bytes.count) present")
        }
        let header = try DIBHeader(&reader)
        try limits.check(width: header.width, height: header.height, format: .bmp)

        let tablesEnd = reader.offset + header.tablesSize
        guard pixelOffset >= tablesEnd else {
            throw reader.rejection(
                .bmpBadOffset, "pixel data at \(pixelOffset) overlaps headers ending at \(tablesEnd)")
        }
        let pixelBytes = header.uncompressedSize(rows: header.height) ?? header.imageSize
        guard pixelOffset <= bytes.count, pixelBytes <= bytes.count - pixelOffset else {
            throw reader.rejection(
                .truncated, "\(pixelBytes) bytes of pixels at offset \(pixelOffset), file has \(bytes.count)")
        }
        // An uncompressed bitmap's decoder ignores `biSizeImage`, but one larger than the file is impossible.
        guard header.imageSize <= bytes.count - pixelOffset else {
            throw reader.rejection(
                .bmpBadFormat, "biSizeImage \(header.imageSize) past the \(bytes.count - pixelOffset) bytes of pixels")
        }
        return ImageInfo(format: .bmp, width: header.width, height: header.height)
    }
}
