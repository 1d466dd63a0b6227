/// Validates TIFF files in either byte order: the IFD chain and the required tags of the first IFD.
///
/// Follows the [TIFF 6.0](https://www.itu.int/itudoc/itu-t/com16/tiff-fx/docs/tiff6.pdf) file
/// structure (§2): every IFD and every out-of-line value must lie within the file, the chain must
/// not loop (Brent's cycle detection, constant memory), and the first IFD must carry ImageWidth,
/// ImageLength and strip or tile offsets with byte counts whose data lies within the file. IFDs of
/// well-formed files do not overlap, so the bytes walked are capped at twice the file size: that
/// keeps the time linear whatever the chain claims. Trailing bytes are tolerated (TIFF data is
/// found by offsets, and writers leave padding).
enum TIFFValidator {
    static func validate(_ bytes: UnsafeRawBufferPointer, limits: ImageValidationLimits) throws(ImageRejection)
        -> ImageInfo
    {
        var reader = ByteReader(bytes, format: .tiff)
        let order: ByteOrder = try reader.readUInt8() == 0x49 ? .littleEndian : .bigEndian
        try reader.skip(1)
        let version = try reader.readUInt16(order)
        guard version == 42 else { throw reader.rejection(.tiffUnsupported, "TIFF version \(version) (BigTIFF)") }
        var next = Int(try reader.readUInt32(order))
        guard next != 0 else { throw reader.rejection(.tiffBadIFD, "no first IFD") }

        var size: (width: Int, height: Int)?
        var budget = 2 * bytes.count
        var tortoise = -1
        var steps = 0
        var power = 1
        while next != 0 {
            guard next >= 8 else { throw reader.rejection(.tiffBadIFD, "IFD offset \(next) inside the header") }
            guard next != tortoise else { throw reader.rejection(.tiffIFDLoop, "IFD at offset \(next) visited twice") }
            steps += 1
            if steps == power {
                tortoise = next
                power *= 2
                steps = 0
            }
            try reader.seek(to: next)
            let ifd = try IFD(&reader, order: order)
            budget -= ifd.byteSize + ifd.arrayBytes
            guard budget >= 0 else {
                throw reader.rejection(.tiffBadIFD, "IFDs overlap (more bytes walked than the file holds)")
            }
            if size == nil {
                guard let width = ifd.width, let height = ifd.height, ifd.hasImageData else {
                    throw reader.rejection(
                        .tiffMissingTag, "first IFD lacks ImageWidth, ImageLength or strip/tile offsets and counts")
                }
                try limits.check(width: width, height: height, format: .tiff)
                size = (width, height)
            }
            next = ifd.next
        }
        return ImageInfo(format: .tiff, width: size!.width, height: size!.height)
    }
}

/// One image file directory, read and bounds-checked.
private struct IFD {
    var width: Int?
    var height: Int?
    var hasImageData = false
    var next = 0
    var byteSize = 0
    var arrayBytes = 0

    init(_ reader: inout ByteReader, order: ByteOrder) throws(ImageRejection) {
        let start = reader.offset
        let count = Int(try reader.readUInt16(order))
        guard count > 0 else { throw reader.rejection(.tiffBadIFD, "empty IFD at offset \(start)") }
        try reader.require(count * 12 + 4, "an IFD of \(count) entries")
        byteSize = 2 + count * 12 + 4
        var offsets: Entry?
        var byteCounts: Entry?
        var tiled = false
        for _ in 0..<count {
            let entry = try Entry(&reader, order: order)
            switch entry.tag {
            case 256: width = try entry.singleInteger(reader, order: order)
            case 257: height = try entry.singleInteger(reader, order: order)
            case 273: offsets = entry
            case 279: byteCounts = entry
            case 324:
                offsets = entry
                tiled = true
            case 325: byteCounts = entry
            default: break
            }
        }
        next = Int(try reader.readUInt32(order))
        if let offsets, let byteCounts {
            guard offsets.count == byteCounts.count, offsets.count > 0 else {
                throw reader.rejection(
                    .tiffMissingTag, "\(offsets.count) \(tiled ? "tile" : "strip") offsets, \(byteCounts.count) counts")
            }
            for index in 0..<offsets.count {
                let offset = try offsets.integer(at: index, reader, order: order)
                let length = try byteCounts.integer(at: index, reader, order: order)
                guard offset <= reader.count, length <= reader.count - offset else {
                    throw reader.rejection(
                        .truncated, "image data \(offset)+\(length) past the end (\(reader.count) bytes)")
                }
            }
            arrayBytes = offsets.byteSize + byteCounts.byteSize
            hasImageData = true
        }
    }
}

/// One 12-byte IFD entry; its values are inline when they fit in 4 bytes, else at an offset.
private struct Entry {
    var tag: UInt16
    var type: UInt16
    var count: Int
    /// Where the values are: the entry's own value field or the offset it holds.
    var valuesOffset: Int
    var byteSize: Int

    static func typeSize(_ type: UInt16) -> Int? {
        switch type {
        case 1, 2, 6, 7: 1
        case 3, 8: 2
        case 4, 9, 11, 13: 4
        case 5, 10, 12: 8
        default: nil  // unknown types are skipped, as TIFF 6.0 §2 asks of readers
        }
    }

    init(_ reader: inout ByteReader, order: ByteOrder) throws(ImageRejection) {
        tag = try reader.readUInt16(order)
        type = try reader.readUInt16(order)
        count = Int(try reader.readUInt32(order))
        let field = reader.offset
        let pointer = Int(try reader.readUInt32(order))
        let size = (Self.typeSize(type) ?? 0) * count  // at most 8 × (2^32 − 1): no overflow
        byteSize = size
        valuesOffset = size <= 4 ? field : pointer
        guard valuesOffset <= reader.count, size <= reader.count - valuesOffset else {
            throw reader.rejection(.truncated, "tag \(tag) values \(pointer)+\(size) past the end")
        }
    }

    /// The `index`th value of a SHORT or LONG entry.
    func integer(at index: Int, _ reader: ByteReader, order: ByteOrder) throws(ImageRejection) -> Int {
        guard type == 3 || type == 4 else { throw reader.rejection(.tiffBadIFD, "tag \(tag) has type \(type)") }
        var values = ByteReader(reader.bytes, format: .tiff, offset: valuesOffset + index * (type == 3 ? 2 : 4))
        return type == 3 ? Int(try values.readUInt16(order)) : Int(try values.readUInt32(order))
    }

    func singleInteger(_ reader: ByteReader, order: ByteOrder) throws(ImageRejection) -> Int {
        guard count == 1 else { throw reader.rejection(.tiffBadIFD, "tag \(tag) has \(count) values") }
        return try integer(at: 0, reader, order: order)
    }
}
