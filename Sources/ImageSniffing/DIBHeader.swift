/// A device-independent bitmap header, shared by BMP files and the bitmaps inside ICO and CUR.
///
/// Reads `BITMAPCOREHEADER` (12 bytes) and `BITMAPINFOHEADER` (40) with its extensions (52, 56,
/// V4 108, V5 124), as documented in Microsoft's
/// [Bitmap Storage](https://learn.microsoft.com/windows/win32/gdi/bitmap-storage) pages.
struct DIBHeader {
    static let sizes: [UInt32] = [12, 40, 52, 56, 108, 124]

    var headerSize: Int
    var width: Int
    /// Rows as stored; for icons this is twice the image height (colour rows then mask rows).
    var height: Int
    var topDown: Bool
    var bitCount: Int
    var compression: UInt32
    var imageSize: Int
    /// Bytes of colour table and bit masks that follow the header before the pixels.
    var tablesSize: Int

    /// Reads and checks a header at the reader's position, leaving the reader after it.
    init(_ reader: inout ByteReader) throws(ImageRejection) {
        let start = reader.offset
        let size = try reader.readUInt32(.littleEndian)
        guard Self.sizes.contains(size) else {
            throw reader.rejection(.bmpBadHeaderSize, "DIB header size \(size) at offset \(start)")
        }
        try reader.require(Int(size) - 4, "a DIB header of \(size) bytes")
        headerSize = Int(size)
        let planes: UInt16
        var colorsUsed = 0
        if size == 12 {
            width = Int(try reader.readUInt16(.littleEndian))
            height = Int(try reader.readUInt16(.littleEndian))
            topDown = false
            planes = try reader.readUInt16(.littleEndian)
            bitCount = Int(try reader.readUInt16(.littleEndian))
            compression = 0
            imageSize = 0
        } else {
            width = Int(Int32(bitPattern: try reader.readUInt32(.littleEndian)))
            let signedHeight = Int(Int32(bitPattern: try reader.readUInt32(.littleEndian)))
            topDown = signedHeight < 0
            height = signedHeight.magnitude > Int.max ? 0 : Int(signedHeight.magnitude)
            planes = try reader.readUInt16(.littleEndian)
            bitCount = Int(try reader.readUInt16(.littleEndian))
            compression = try reader.readUInt32(.littleEndian)
            imageSize = Int(try reader.readUInt32(.littleEndian))
            // Pixels per metre, signed: a negative resolution is no resolution a writer could mean.
            let xResolution = Int32(bitPattern: try reader.readUInt32(.littleEndian))
            let yResolution = Int32(bitPattern: try reader.readUInt32(.littleEndian))
            guard xResolution >= 0, yResolution >= 0 else {
                throw reader.rejection(.bmpBadFormat, "resolution \(xResolution) × \(yResolution) pixels per metre")
            }
            colorsUsed = Int(try reader.readUInt32(.littleEndian))
            try reader.skip(Int(size) - 36)
        }
        guard planes == 1 else { throw reader.rejection(.bmpBadFormat, "\(planes) planes") }
        let bitCountAllowed =
            switch compression {
            case 0:
                bitCount == 1 || bitCount == 4 || bitCount == 8 || bitCount == 24
                    || (size != 12 && (bitCount == 16 || bitCount == 32))
            case 1: bitCount == 8  // RLE8
            case 2: bitCount == 4  // RLE4
            case 3, 6: bitCount == 16 || bitCount == 32  // BITFIELDS, ALPHABITFIELDS
            case 4, 5: bitCount == 0  // embedded JPEG or PNG
            default: false
            }
        guard bitCountAllowed else {
            throw reader.rejection(.bmpBadFormat, "bit count \(bitCount) with compression \(compression)")
        }
        // `biSizeImage` "may be set to zero for BI_RGB bitmaps" (and the bit-field forms, which share its
        // layout); compressed pixels have no other length.
        guard imageSize > 0 || [0, 3, 6].contains(compression) else {
            throw reader.rejection(.bmpBadFormat, "compression \(compression) with no image size")
        }
        guard !topDown || compression == 0 || compression == 3 || compression == 6 else {
            throw reader.rejection(.bmpBadFormat, "top-down rows with compression \(compression)")
        }
        let maxColors = bitCount <= 8 ? 1 << bitCount : 1 << 16
        guard colorsUsed <= maxColors else {
            throw reader.rejection(.bmpBadFormat, "\(colorsUsed) colours for \(bitCount) bits")
        }
        let paletteEntries = colorsUsed == 0 && bitCount <= 8 && bitCount > 0 ? 1 << bitCount : colorsUsed
        // In a 40-byte header the masks follow it; larger headers contain them.
        let masks = size == 40 ? (compression == 3 ? 12 : compression == 6 ? 16 : 0) : 0
        tablesSize = masks + paletteEntries * (size == 12 ? 3 : 4)
    }

    /// Bytes of `rows` rows of `bits`-per-pixel data, each padded to 32 bits; `Int.max` when that
    /// overflows (limits may be lifted, so a declared size cannot be trusted to be small).
    static func pixelBytes(width: Int, bits: Int, rows: Int) -> Int {
        let (bitsPerRow, overflowBits) = width.multipliedReportingOverflow(by: bits)
        guard !overflowBits, bitsPerRow <= Int.max - 31 else { return .max }
        let (total, overflow) = ((bitsPerRow + 31) / 32 * 4).multipliedReportingOverflow(by: rows)
        return overflow ? .max : total
    }

    /// Bytes the uncompressed colour bitmap occupies for `rows` rows (`Int.max` on overflow), or
    /// `nil` when the bitmap is compressed.
    func uncompressedSize(rows: Int) -> Int? {
        compression == 0 || compression == 3 || compression == 6
            ? Self.pixelBytes(width: width, bits: bitCount, rows: rows) : nil
    }
}
