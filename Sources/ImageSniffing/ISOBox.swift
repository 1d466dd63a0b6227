/// One ISO base media file format box header and its payload (ISO/IEC 14496-12 §4.2).
///
/// Sizes are 32-bit, or 64-bit when the 32-bit size is 1, or "to the end of the container" when it
/// is 0. A size smaller than the header is `heif.bad-box`; one past the container is `truncated`.
struct ISOBox {
    var type: UInt32
    /// The payload after the header, rebased to start at 0.
    var payload: ByteReader
    /// Offset of the payload within the whole file, for `iloc` and `idat` offsets.
    var payloadFileOffset: Int

    /// Reads the next box of a container and moves the container's reader past it.
    /// - Parameters:
    ///   - reader: The container's payload.
    ///   - fileOffset: Where `reader`'s byte 0 lies in the file.
    init(_ reader: inout ByteReader, fileOffset: Int) throws(ImageRejection) {
        let start = reader.offset
        let size32 = try reader.readUInt32(.bigEndian)
        type = try reader.readFourCC()
        var size: UInt64
        switch size32 {
        case 0: size = UInt64(reader.remaining + 8)
        case 1: size = try reader.readUInt64BigEndian()
        default: size = UInt64(size32)
        }
        let headerLength = reader.offset - start
        guard size >= UInt64(headerLength) else {
            throw reader.rejection(
                .heifBadBox, "box \(fourCCText(type)) at offset \(fileOffset + start) of size \(size)")
        }
        let payloadLength = size - UInt64(headerLength)
        guard payloadLength <= UInt64(reader.remaining) else {
            throw reader.rejection(
                .truncated, "box \(fourCCText(type)) at offset \(fileOffset + start) needs \(size) bytes")
        }
        payloadFileOffset = fileOffset + reader.offset
        payload = try reader.subReader(Int(payloadLength))
    }

    /// Reads a full box's version and flags (§4.2.2).
    static func readFullBoxHeader(_ reader: inout ByteReader) throws(ImageRejection) -> (version: UInt8, flags: UInt32)
    {
        let version = try reader.readUInt8()
        let flags = try reader.readUInt24(.bigEndian)
        return (version, flags)
    }
}
