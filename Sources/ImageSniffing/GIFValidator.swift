/// Validates GIF 87a and 89a structure: logical screen, colour tables, the block walk, the trailer.
///
/// Follows [GIF89a](https://www.w3.org/Graphics/GIF/spec-gif89a.txt) §17–§27: every image
/// descriptor's local colour table and LZW sub-blocks, every extension's sub-blocks, then `0x3B`.
/// The reported size is the logical screen's. Bytes after the trailer are refused (`trailing-data`),
/// as for PNG.
enum GIFValidator {
    static func validate(_ bytes: UnsafeRawBufferPointer, limits: ImageValidationLimits) throws(ImageRejection)
        -> ImageInfo
    {
        var reader = ByteReader(bytes, format: .gif)
        try reader.skip(6)  // "GIF87a" / "GIF89a", checked by sniffing
        let width = Int(try reader.readUInt16(.littleEndian))
        let height = Int(try reader.readUInt16(.littleEndian))
        let flags = try reader.readUInt8()
        try reader.skip(2)  // background colour index, pixel aspect ratio
        try limits.check(width: width, height: height, format: .gif)
        if flags & 0x80 != 0 { try reader.skip(3 << (Int(flags & 0x07) + 1)) }

        var imageCount = 0
        while true {
            let blockOffset = reader.offset
            switch try reader.readUInt8() {
            case 0x2C:
                try reader.skip(8)  // left, top, width, height
                let imageFlags = try reader.readUInt8()
                if imageFlags & 0x80 != 0 { try reader.skip(3 << (Int(imageFlags & 0x07) + 1)) }
                let codeSize = try reader.readUInt8()
                guard (2...8).contains(codeSize) else {
                    throw reader.rejection(
                        .gifBadLZWCodeSize, "LZW code size \(codeSize) at offset \(reader.offset - 1)")
                }
                try skipSubBlocks(&reader)
                imageCount += 1
            case 0x21:
                _ = try reader.readUInt8()  // extension label
                try skipSubBlocks(&reader)
            case 0x3B:
                guard imageCount > 0 else { throw reader.rejection(.gifMissingImage, "trailer before any image") }
                guard reader.isAtEnd else {
                    throw reader.rejection(.trailingData, "\(reader.remaining) bytes after the trailer")
                }
                return ImageInfo(format: .gif, width: width, height: height)
            case let byte:
                throw reader.rejection(.gifBadBlock, "byte \(byte) at offset \(blockOffset) starts no block")
            }
        }
    }

    /// Skips data sub-blocks up to and including the zero-length terminator (§15).
    private static func skipSubBlocks(_ reader: inout ByteReader) throws(ImageRejection) {
        while true {
            let length = Int(try reader.readUInt8())
            if length == 0 { return }
            try reader.skip(length)
        }
    }
}
