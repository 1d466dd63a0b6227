import Glibc

/// Validates JPEG structure: `SOI`, the marker walk, one frame header, scans, `EOI`.
///
/// Follows the syntax of [ITU-T T.81 Annex B](https://www.w3.org/Graphics/JPEG/itu-t81.pdf):
/// every marker segment's length is checked against the data, the frame header (any SOFn: baseline,
/// extended, progressive, lossless, arithmetic) gives the dimensions, and entropy-coded data after
/// each `SOS` is skipped byte by byte, past stuffed `FF 00` and `RSTn` markers. Bytes after `EOI`
/// are accepted: phones append further images there (CIPA MPF depth maps and previews).
enum JPEGValidator {
    static func validate(_ bytes: UnsafeRawBufferPointer, limits: ImageValidationLimits) throws(ImageRejection)
        -> ImageInfo
    {
        var reader = ByteReader(bytes, format: .jpeg)
        try reader.skip(2)  // SOI, checked by sniffing
        var size: (width: Int, height: Int)?
        var componentCount = 0
        var sawScan = false

        while true {
            let markerOffset = reader.offset
            guard try reader.readUInt8() == 0xFF else {
                throw reader.rejection(.jpegBadMarker, "no marker at offset \(markerOffset)")
            }
            var marker = try reader.readUInt8()
            while marker == 0xFF { marker = try reader.readUInt8() }  // fill bytes (B.1.1.2)

            switch marker {
            case 0xD9:
                guard let size, sawScan else {
                    throw reader.rejection(.jpegMissingScan, "EOI at offset \(markerOffset) before a frame and a scan")
                }
                return ImageInfo(format: .jpeg, width: size.width, height: size.height)
            case 0x01, 0xD0...0xD7:
                continue  // TEM and RSTn stand alone
            case 0x00, 0xD8:
                throw reader.rejection(.jpegBadMarker, "marker FF\(hex(marker)) at offset \(markerOffset)")
            default:
                break
            }

            let length = Int(try reader.readUInt16(.bigEndian))
            guard length >= 2 else {
                throw reader.rejection(.jpegBadSegmentLength, "segment length \(length) at offset \(markerOffset)")
            }
            var segment = try reader.subReader(length - 2)
            switch marker {
            case 0xC0...0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF:
                guard size == nil else {
                    throw reader.rejection(.jpegMultipleFrames, "second frame header at offset \(markerOffset)")
                }
                let frame = try readFrame(&segment, marker: marker, limits: limits)
                size = (frame.width, frame.height)
                componentCount = frame.components
            case 0xDA:
                guard size != nil else {
                    throw reader.rejection(.jpegBadScan, "SOS at offset \(markerOffset) before a frame header")
                }
                try checkScan(&segment, componentCount: componentCount)
                sawScan = true
                try skipEntropyCodedData(&reader)
            default:
                break  // APPn, DQT, DHT, DRI, COM, DNL, ...: the length was all there was to check
            }
        }
    }

    private static func readFrame(_ segment: inout ByteReader, marker: UInt8, limits: ImageValidationLimits)
        throws(ImageRejection) -> (width: Int, height: Int, components: Int)
    {
        let precision = try segment.readUInt8()
        let height = Int(try segment.readUInt16(.bigEndian))
        let width = Int(try segment.readUInt16(.bigEndian))
        let components = Int(try segment.readUInt8())
        let lossless = marker == 0xC3 || marker == 0xC7 || marker == 0xCB || marker == 0xCF
        guard lossless ? (2...16).contains(precision) : (precision == 8 || precision == 12) else {
            throw segment.rejection(.jpegBadFrame, "precision \(precision) in SOF\(marker - 0xC0)")
        }
        guard (1...4).contains(components) else {
            throw segment.rejection(.jpegBadFrame, "\(components) components")
        }
        guard segment.remaining == 3 * components else {
            throw segment.rejection(.jpegBadSegmentLength, "frame header length for \(components) components")
        }
        for _ in 0..<components {
            _ = try segment.readUInt8()
            let sampling = try segment.readUInt8()
            let table = try segment.readUInt8()
            guard (1...4).contains(sampling >> 4), (1...4).contains(sampling & 0x0F), table <= 3 else {
                throw segment.rejection(.jpegBadFrame, "component sampling \(hex(sampling)) or table \(table)")
            }
        }
        // Height 0 ("defined by DNL") is legal in T.81 but no browser renders it; refuse it as zero.
        try limits.check(width: width, height: height, format: .jpeg)
        return (width, height, components)
    }

    private static func checkScan(_ segment: inout ByteReader, componentCount: Int) throws(ImageRejection) {
        let count = Int(try segment.readUInt8())
        guard (1...4).contains(count), count <= componentCount, segment.remaining == 2 * count + 3 else {
            throw segment.rejection(.jpegBadScan, "scan of \(count) components, \(segment.remaining) bytes left")
        }
    }

    /// Moves past entropy-coded data to the `FF` of the next real marker (B.1.1.5).
    private static func skipEntropyCodedData(_ reader: inout ByteReader) throws(ImageRejection) {
        let bytes = reader.bytes
        var position = reader.offset
        while position < bytes.count, let base = bytes.baseAddress {
            // Entropy-coded bytes are rarely 0xFF: memchr finds the next one a vector register at a time
            // (per byte, a loop of eight-byte words cost about 2.4 instructions; callgrind, a 16 KiB JPEG).
            guard let found = memchr(base + position, 0xFF, bytes.count - position) else { break }
            position = base.distance(to: UnsafeRawPointer(found))
            guard position + 1 < bytes.count else { break }
            let next = bytes[position + 1]
            if next == 0x00 || (0xD0...0xD7).contains(next) {
                position += 2  // stuffed zero or restart marker
            } else if next == 0xFF {
                position += 1  // fill byte before a marker
            } else {
                try reader.seek(to: position)
                return
            }
        }
        throw reader.rejection(.jpegMissingEOI, "entropy-coded data runs to the end without EOI")
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return digits.count == 1 ? "0" + digits : digits
    }
}
