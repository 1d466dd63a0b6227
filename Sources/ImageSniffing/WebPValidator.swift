/// Validates WebP files: the RIFF size, the chunk walk, and the VP8, VP8L and VP8X headers.
///
/// Follows [RFC 9649](https://www.rfc-editor.org/rfc/rfc9649) §2: the RIFF size must match the data
/// exactly (more is `trailing-data`, less `truncated`), chunks are padded to even sizes, the first
/// chunk is `VP8 ` (a key frame with the start code), `VP8L` (signature 0x2f, version 0) or `VP8X`
/// (canvas size and flags). An extended file must hold a still image the size of its canvas, or,
/// when its animation flag is set, `ANIM` and frames (`ANMF`) that each hold an image inside the canvas.
enum WebPValidator {
    static func validate(_ bytes: UnsafeRawBufferPointer, limits: ImageValidationLimits) throws(ImageRejection)
        -> ImageInfo
    {
        var reader = ByteReader(bytes, format: .webp)
        try reader.skip(4)  // "RIFF"
        let riffSize = Int(try reader.readUInt32(.littleEndian))
        try reader.skip(4)  // "WEBP", checked by sniffing
        guard riffSize >= 4 else { throw reader.rejection(.webpBadRIFF, "RIFF size \(riffSize)") }
        guard riffSize + 8 <= bytes.count else {
            throw reader.rejection(
                .truncated, "RIFF size \(riffSize) needs \(riffSize + 8) bytes, \(bytes.count) present")
        }
        guard riffSize + 8 == bytes.count else {
            throw reader.rejection(.trailingData, "\(bytes.count - riffSize - 8) bytes after the RIFF data")
        }
        var chunks = try reader.subReader(riffSize - 4)

        let first = try Chunk(&chunks)
        switch first.type {
        case fourCC("VP8 "), fourCC("VP8L"):
            let size = try imageSize(first)
            try limits.check(width: size.width, height: size.height, format: .webp)
            while !chunks.isAtEnd { _ = try Chunk(&chunks) }
            return ImageInfo(format: .webp, width: size.width, height: size.height)
        case fourCC("VP8X"):
            var header = first.data
            guard header.count >= 10 else { throw header.rejection(.webpBadVP8X, "VP8X of \(header.count) bytes") }
            let flags = try header.readUInt8()
            try header.skip(3)
            let width = Int(try header.readUInt24(.littleEndian)) + 1
            let height = Int(try header.readUInt24(.littleEndian)) + 1
            guard width * height <= 0xFFFF_FFFF else {
                throw header.rejection(.webpBadVP8X, "canvas \(width)×\(height) above 2^32-1 pixels")
            }
            try limits.check(width: width, height: height, format: .webp)
            try checkExtended(&chunks, animated: flags & 0x02 != 0, canvas: (width, height))
            return ImageInfo(format: .webp, width: width, height: height)
        default:
            throw reader.rejection(.webpBadChunk, "first chunk is \(fourCCText(first.type))")
        }
    }

    private static func checkExtended(_ chunks: inout ByteReader, animated: Bool, canvas: (width: Int, height: Int))
        throws(ImageRejection)
    {
        var sawAnimation = false
        var frames = 0
        var stillImage: (width: Int, height: Int)?
        while !chunks.isAtEnd {
            let chunk = try Chunk(&chunks)
            switch chunk.type {
            case fourCC("VP8 "), fourCC("VP8L"):
                if stillImage == nil { stillImage = try imageSize(chunk) }
            case fourCC("ANIM"):
                guard chunk.data.count >= 6 else {
                    throw chunks.rejection(.webpBadChunk, "ANIM of \(chunk.data.count) bytes")
                }
                sawAnimation = true
            case fourCC("ANMF"):
                try checkFrame(chunk.data, canvas: canvas)
                frames += 1
            default:
                break  // ALPH, ICCP, EXIF, XMP and unknown chunks
            }
        }
        if animated {
            guard sawAnimation, frames > 0 else {
                throw chunks.rejection(.webpBadChunk, "animation flag without ANIM and ANMF chunks")
            }
        } else {
            guard let stillImage else { throw chunks.rejection(.webpBadChunk, "VP8X without an image chunk") }
            guard stillImage == canvas else {
                let sizes = "image \(stillImage.width)×\(stillImage.height), canvas \(canvas.width)×\(canvas.height)"
                throw chunks.rejection(.webpBadVP8X, "sizes differ: \(sizes)")
            }
        }
    }

    private static func checkFrame(_ data: ByteReader, canvas: (width: Int, height: Int)) throws(ImageRejection) {
        var frame = data
        let x = Int(try frame.readUInt24(.littleEndian)) * 2
        let y = Int(try frame.readUInt24(.littleEndian)) * 2
        let width = Int(try frame.readUInt24(.littleEndian)) + 1
        let height = Int(try frame.readUInt24(.littleEndian)) + 1
        try frame.skip(4)  // duration, flags
        guard x + width <= canvas.width, y + height <= canvas.height else {
            throw frame.rejection(.webpBadChunk, "frame \(width)×\(height) at \(x),\(y) outside the canvas")
        }
        var sawImage = false
        while !frame.isAtEnd {
            let chunk = try Chunk(&frame)
            if chunk.type == fourCC("VP8 ") || chunk.type == fourCC("VP8L") {
                guard try imageSize(chunk) == (width, height) else {
                    throw frame.rejection(.webpBadChunk, "frame image differs from its \(width)×\(height) frame")
                }
                sawImage = true
            }
        }
        guard sawImage else { throw frame.rejection(.webpBadChunk, "ANMF without an image") }
    }

    /// The size a `VP8 ` or `VP8L` chunk declares, after checking its header.
    private static func imageSize(_ chunk: Chunk) throws(ImageRejection) -> (width: Int, height: Int) {
        var data = chunk.data
        if chunk.type == fourCC("VP8L") {
            guard try data.readUInt8() == 0x2F else { throw data.rejection(.webpBadVP8L, "no 0x2f signature") }
            let bits = try data.readUInt32(.littleEndian)
            guard bits >> 29 == 0 else { throw data.rejection(.webpBadVP8L, "version \(bits >> 29)") }
            return (Int(bits & 0x3FFF) + 1, Int(bits >> 14 & 0x3FFF) + 1)
        }
        // RFC 6386 §9.1: a 3-byte frame tag, then for key frames the start code and the sizes.
        let tag = try data.readUInt24(.littleEndian)
        guard tag & 1 == 0 else { throw data.rejection(.webpBadVP8, "not a key frame") }
        guard tag >> 1 & 7 <= 3, Int(tag >> 5) <= data.count else {
            throw data.rejection(.webpBadVP8, "version \(tag >> 1 & 7), first partition \(tag >> 5) bytes")
        }
        guard data.peek(matches: [0x9D, 0x01, 0x2A]) else { throw data.rejection(.webpBadVP8, "no start code") }
        try data.skip(3)
        let width = Int(try data.readUInt16(.littleEndian) & 0x3FFF)
        let height = Int(try data.readUInt16(.littleEndian) & 0x3FFF)
        guard width > 0, height > 0 else {
            throw data.rejection(.zeroDimension, "VP8 frame \(width)×\(height)")
        }
        return (width, height)
    }
}

/// One RIFF chunk: a FourCC, a little-endian size, the data, and a pad byte when the size is odd.
private struct Chunk {
    var type: UInt32
    var data: ByteReader

    init(_ reader: inout ByteReader) throws(ImageRejection) {
        type = try reader.readFourCC()
        let size = Int(try reader.readUInt32(.littleEndian))
        data = try reader.subReader(size)
        if size % 2 == 1 { try reader.skip(1) }
    }
}
