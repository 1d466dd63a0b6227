import Zlib

/// Validates PNG structure: signature, `IHDR` first, every chunk's length and CRC, `IDAT`, `IEND`, and
/// the image data: the `IDAT` stream inflated to exactly the scanlines `IHDR` describes (`PNGImageData`).
///
/// Implements the chunk rules of [PNG (Third Edition) §5](https://www.w3.org/TR/png-3/#5DataRep)
/// and the `IHDR` field table of [§11.2.1](https://www.w3.org/TR/png-3/#11IHDR). Bytes after `IEND`
/// are refused (`trailing-data`): no encoder writes them, and an image with something appended is
/// how polyglot files (PNG + ZIP or HTML) slip through image caches.
enum PNGValidator {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// - Parameter inflating: whether the image data is inflated and checked (`PNGImageData`).
    static func validate(
        _ bytes: UnsafeRawBufferPointer, limits: ImageValidationLimits, inflating: Bool = true
    ) throws(ImageRejection) -> ImageInfo {
        var reader = ByteReader(bytes, format: .png)
        try reader.skip(signature.count)

        var size: (width: Int, height: Int)?
        var colourType: UInt8 = 0
        var imageData: PNGImageData?
        var sawPalette = false
        var idatState = IDATState.none
        while true {
            let chunkStart = reader.offset
            let length = try reader.readUInt32(.bigEndian)
            guard length <= 0x7FFF_FFFF else {
                throw reader.rejection(.pngBadChunk, "chunk length \(length) at offset \(chunkStart) exceeds 2^31-1")
            }
            try reader.require(Int(length) + 8, "a chunk of \(length) bytes")
            let typeAndData = UnsafeRawBufferPointer(rebasing: bytes[reader.offset..<reader.offset + 4 + Int(length)])
            let type = try reader.readFourCC()
            var data = try reader.subReader(Int(length))
            let storedCRC = try reader.readUInt32(.bigEndian)
            guard isChunkType(type) else {
                throw reader.rejection(.pngBadChunk, "chunk type \(fourCCText(type)) at offset \(chunkStart)")
            }
            guard CRC32.checksum(typeAndData) == storedCRC else {
                throw reader.rejection(.pngCRCMismatch, "chunk \(fourCCText(type)) at offset \(chunkStart)")
            }

            if size == nil {
                guard type == fourCC("IHDR") else {
                    throw reader.rejection(.pngIHDRNotFirst, "first chunk is \(fourCCText(type))")
                }
                let header = try readHeader(&data, limits: limits)
                size = (header.width, header.height)
                colourType = header.colourType
                if inflating {
                    imageData = try PNGImageData(
                        width: header.width, height: header.height, bitsPerPixel: header.bitsPerPixel,
                        interlaced: header.interlaced)
                }
                continue
            }
            switch type {
            case fourCC("IHDR"):
                throw reader.rejection(.pngMisplacedChunk, "second IHDR at offset \(chunkStart)")
            case fourCC("PLTE"):
                guard length > 0, length % 3 == 0, length <= 768, colourType != 0, colourType != 4,
                    idatState == .none
                else {
                    throw reader.rejection(.pngBadPalette, "PLTE of \(length) bytes for colour type \(colourType)")
                }
                sawPalette = true
            case fourCC("IDAT"):
                if idatState == .ended {
                    throw reader.rejection(.pngIDATNotContiguous, "IDAT at offset \(chunkStart) after another chunk")
                }
                if colourType == 3 && !sawPalette {
                    throw reader.rejection(.pngBadPalette, "palette image without PLTE before IDAT")
                }
                idatState = .inside
                try imageData?.append(data.bytes, chunkStart: chunkStart)
            case fourCC("IEND"):
                guard idatState != .none else { throw reader.rejection(.pngMissingIDAT, "IEND before any IDAT") }
                guard length == 0 else { throw reader.rejection(.pngMisplacedChunk, "IEND with \(length) bytes") }
                guard reader.isAtEnd else {
                    throw reader.rejection(.trailingData, "\(reader.remaining) bytes after IEND")
                }
                try imageData?.finish()
                return ImageInfo(format: .png, width: size!.width, height: size!.height)
            default:
                if idatState == .inside { idatState = .ended }
            }
        }
    }

    private enum IDATState { case none, inside, ended }

    private static func readHeader(_ data: inout ByteReader, limits: ImageValidationLimits) throws(ImageRejection)
        -> (width: Int, height: Int, colourType: UInt8, bitsPerPixel: Int, interlaced: Bool)
    {
        guard data.count == 13 else { throw data.rejection(.pngBadIHDR, "IHDR is \(data.count) bytes, not 13") }
        let width = try data.readUInt32(.bigEndian)
        let height = try data.readUInt32(.bigEndian)
        let bitDepth = try data.readUInt8()
        let colourType = try data.readUInt8()
        let compression = try data.readUInt8()
        let filter = try data.readUInt8()
        let interlace = try data.readUInt8()
        guard width <= 0x7FFF_FFFF, height <= 0x7FFF_FFFF else {
            throw data.rejection(.pngBadIHDR, "dimension above 2^31-1")
        }
        let depthAllowed =
            switch colourType {
            case 0: bitDepth.nonzeroBitCount == 1 && bitDepth <= 16
            case 3: bitDepth.nonzeroBitCount == 1 && bitDepth <= 8
            case 2, 4, 6: bitDepth == 8 || bitDepth == 16
            default: false
            }
        guard depthAllowed else {
            throw data.rejection(.pngBadIHDR, "bit depth \(bitDepth) with colour type \(colourType)")
        }
        guard compression == 0, filter == 0, interlace <= 1 else {
            throw data.rejection(
                .pngBadIHDR, "compression \(compression), filter \(filter), interlace \(interlace)")
        }
        try limits.check(width: Int(width), height: Int(height), format: .png)
        let samples =
            switch colourType {
            case 2: 3
            case 4: 2
            case 6: 4
            default: 1
            }
        return (Int(width), Int(height), colourType, samples * Int(bitDepth), interlace == 1)
    }

    /// Chunk types are four ASCII letters ([§5.4](https://www.w3.org/TR/png-3/#5Chunk-layout)).
    private static func isChunkType(_ type: UInt32) -> Bool {
        for shift in [24, 16, 8, 0] {
            let byte = UInt8(truncatingIfNeeded: type >> UInt32(shift))
            guard (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) else { return false }
        }
        return true
    }
}
