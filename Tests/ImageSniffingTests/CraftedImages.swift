import TestSupport
import Zlib

@testable import ImageSniffing

/// Small files built byte by byte, for the cases Pillow cannot write and for precise corruptions.
enum Crafted {
    // MARK: PNG

    static func pngChunk(_ type: String, _ data: [UInt8], crc: UInt32? = nil) -> [UInt8] {
        let typeAndData = ascii(type) + data
        let checksum = crc ?? ReferenceCRC32.checksum(typeAndData)
        return be32(data.count) + typeAndData + be32(Int(checksum))
    }

    static func ihdr(width: Int = 3, height: Int = 2, bitDepth: UInt8 = 8, colourType: UInt8 = 2, interlace: UInt8 = 0)
        -> [UInt8]
    {
        pngChunk("IHDR", be32(width) + be32(height) + [bitDepth, colourType, 0, 0, interlace])
    }

    /// A PNG of the given chunks between the signature and nothing else (add IEND yourself).
    static func png(_ chunks: [[UInt8]]) -> [UInt8] {
        PNGValidator.signature + chunks.joined()
    }

    /// The image data of the default `ihdr()` (3 × 2, RGB, 8 bits).
    static let idat = idatChunk()
    static let iend = pngChunk("IEND", [])

    /// A complete PNG, its image data real (all black) when the geometry is small enough to make
    /// (a header the validator refuses before its data gets a token IDAT).
    static func png(width: Int = 3, height: Int = 2, bitDepth: UInt8 = 8, colourType: UInt8 = 2) -> [UInt8] {
        let palette = colourType == 3 ? [pngChunk("PLTE", [0, 0, 0, 255, 255, 255])] : []
        let data =
            scanlineLength(width: width, height: height, bitDepth: bitDepth, colourType: colourType) == nil
            ? pngChunk("IDAT", zlib([0]))
            : idatChunk(width: width, height: height, bitDepth: bitDepth, colourType: colourType)
        return png(
            [ihdr(width: width, height: height, bitDepth: bitDepth, colourType: colourType)] + palette + [data, iend])
    }

    /// An `IDAT` holding the whole image data of a geometry: all-zero scanlines (filter None, black).
    static func idatChunk(
        width: Int = 3, height: Int = 2, bitDepth: UInt8 = 8, colourType: UInt8 = 2, interlace: UInt8 = 0
    ) -> [UInt8] {
        let length = scanlineLength(
            width: width, height: height, bitDepth: bitDepth, colourType: colourType, interlace: interlace)
        return pngChunk("IDAT", zlib([UInt8](repeating: 0, count: length ?? 1)))
    }

    /// A zlib stream of `bytes`, as PNG wraps its image data.
    static func zlib(_ bytes: [UInt8]) -> [UInt8] {
        // Deflating into memory cannot fail but for a broken zlib.
        try! Deflater(format: .zlib, level: 9).deflate(bytes, flush: .finish)
    }

    /// The length of the filtered scanlines of a geometry (PNG §7.2: a filter byte per row; per pass
    /// for Adam7, §8.2), worked out apart from the validator's own code; `nil` past 64 MiB.
    static func scanlineLength(
        width: Int, height: Int, bitDepth: UInt8, colourType: UInt8, interlace: UInt8 = 0
    ) -> Int? {
        let samples = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][Int(colourType)] ?? 1
        let bitsPerPixel = samples * Int(bitDepth)
        guard width > 0, height > 0, width <= 1 << 20, height <= 1 << 20 else { return nil }
        var rowsAndColumns: [(Int, Int)] = []
        if interlace == 1 {
            // Adam7's passes: first column and row, and their steps.
            for (x, dx, y, dy) in [
                (0, 8, 0, 8), (4, 8, 0, 8), (0, 4, 4, 8), (2, 4, 0, 4), (0, 2, 2, 4), (1, 2, 0, 2), (0, 1, 1, 2),
            ] {
                let columns = stride(from: x, to: width, by: dx).reduce(0) { count, _ in count + 1 }
                let rows = stride(from: y, to: height, by: dy).reduce(0) { count, _ in count + 1 }
                if columns > 0 && rows > 0 { rowsAndColumns.append((rows, columns)) }
            }
        } else {
            rowsAndColumns = [(height, width)]
        }
        let length = rowsAndColumns.reduce(0) { $0 + $1.0 * (1 + ($1.1 * bitsPerPixel + 7) / 8) }
        return length <= 64 << 20 ? length : nil
    }

    // MARK: JPEG

    static func jpegSegment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0xFF, marker] + be16(payload.count + 2) + payload
    }

    static func sof(_ marker: UInt8 = 0xC0, width: Int, height: Int, components: Int = 3, precision: UInt8 = 8)
        -> [UInt8]
    {
        var payload = [precision] + be16(height) + be16(width) + [UInt8(components)]
        for id in 0..<components { payload += [UInt8(id + 1), 0x11, 0] }
        return jpegSegment(marker, payload)
    }

    static func sos(components: Int = 3) -> [UInt8] {
        var payload = [UInt8(components)]
        for id in 0..<components { payload += [UInt8(id + 1), 0x00] }
        return jpegSegment(0xDA, payload + [0, 63, 0])
    }

    /// Entropy-coded bytes with a stuffed zero, a restart marker and a fill byte.
    static let entropyCoded: [UInt8] = [0x12, 0xFF, 0x00, 0x34, 0xFF, 0xD0, 0x56, 0x78, 0xFF, 0xD1, 0x9A]

    static let jfif = jpegSegment(0xE0, ascii("JFIF") + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0])
    static let dqt = jpegSegment(0xDB, [0] + [UInt8](repeating: 1, count: 64))
    static let dht = jpegSegment(0xC4, [0] + [UInt8](repeating: 0, count: 15) + [1] + [0])

    /// A baseline (or, with `progressive`, a two-scan SOF2) JPEG structure.
    static func jpeg(width: Int = 5, height: Int = 4, progressive: Bool = false) -> [UInt8] {
        var bytes: [UInt8] = [0xFF, 0xD8] + jfif + dqt + sof(progressive ? 0xC2 : 0xC0, width: width, height: height)
        bytes += dht + sos() + entropyCoded
        if progressive { bytes += dht + sos(components: 1) + entropyCoded }
        return bytes + [0xFF, 0xD9]
    }

    // MARK: GIF

    /// A GIF with a global colour table, a graphic control extension and one image.
    static func gif(width: Int = 4, height: Int = 3, version: String = "GIF89a", codeSize: UInt8 = 2) -> [UInt8] {
        var bytes = ascii(version) + le16(width) + le16(height) + [0x80, 0, 0] + [UInt8](repeating: 7, count: 6)
        bytes += [0x21, 0xF9, 4, 0, 10, 0, 0, 0]
        bytes += [0x2C] + le16(0) + le16(0) + le16(width) + le16(height) + [0x81] + [UInt8](repeating: 9, count: 12)
        bytes += [codeSize, 3, 0x8C, 0x2D, 0x99, 1, 0x05, 0]
        return bytes + [0x3B]
    }

    // MARK: BMP

    /// A 24-bit BMP with a BITMAPINFOHEADER (or a larger header of `headerSize` bytes).
    static func bmp(width: Int = 3, height: Int = 2, headerSize: Int = 40, bitCount: Int = 24, compression: Int = 0)
        -> [UInt8]
    {
        let rows = abs(height)
        let rowSize = (width * bitCount + 31) / 32 * 4
        let palette = bitCount <= 8 ? (1 << bitCount) * 4 : 0
        let pixels = [UInt8](repeating: 0x55, count: rowSize * rows)
        var dib = le32(headerSize) + le32(width) + le32(height) + le16(1) + le16(bitCount) + le32(compression)
        dib += le32(pixels.count) + le32(2835) + le32(2835) + le32(0) + le32(0)
        dib += [UInt8](repeating: 0, count: headerSize - 40)
        let offset = 14 + headerSize + palette
        let fileHeader = ascii("BM") + le32(offset + pixels.count) + le32(0) + le32(offset)
        return fileHeader + dib + [UInt8](repeating: 0, count: palette) + pixels
    }

    /// A BMP with the 12-byte OS/2 BITMAPCOREHEADER, 24 bits.
    static func coreBMP(width: Int = 2, height: Int = 2) -> [UInt8] {
        let pixels = [UInt8](repeating: 1, count: (width * 24 + 31) / 32 * 4 * height)
        let dib = le32(12) + le16(width) + le16(height) + le16(1) + le16(24)
        return ascii("BM") + le32(26 + pixels.count) + le32(0) + le32(26) + dib + pixels
    }
}
