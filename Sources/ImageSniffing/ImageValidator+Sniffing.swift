extension ImageValidator {
    /// Recognises a format from the first bytes only, without validating anything after them.
    ///
    /// Used to compare the bytes with a declared `Content-Type`. 32 bytes are enough for every
    /// binary format but AVIF and HEIC, which need their whole `ftyp` box (usually 20–40 bytes); SVG
    /// needs the whole preamble (XML declaration, comments, doctype) before `<svg`.
    /// - Parameter prefix: The first bytes of a payload (or all of it).
    /// - Returns: The format the magic numbers name, or `nil` for anything else (HTML, JSON, ...).
    public static func sniff(_ prefix: UnsafeRawBufferPointer) -> ImageFormat? {
        let reader = ByteReader(prefix, format: nil)
        if reader.peek(matches: PNGValidator.signature) { return .png }
        if reader.peek(matches: Magic.jpeg) { return .jpeg }
        if reader.peek(matches: Magic.gif87a) || reader.peek(matches: Magic.gif89a) { return .gif }
        for magic in Magic.tiff where reader.peek(matches: magic) { return .tiff }
        if reader.peek(matches: Magic.riff), prefix.count >= 12,
            ByteReader(prefix, format: nil, offset: 8).peek(matches: Magic.webp)
        {
            return .webp
        }
        if prefix.count >= 8, ByteReader(prefix, format: nil, offset: 4).peek(matches: Magic.ftyp) {
            return HEIFValidator.brandFormat(ftypPrefix: prefix)
        }
        if reader.peek(matches: Magic.bmp) {
            guard prefix.count >= 18 else { return .bmp }
            let headerSize =
                UInt32(prefix[14]) | UInt32(prefix[15]) << 8 | UInt32(prefix[16]) << 16
                | UInt32(prefix[17]) << 24
            return BMPValidator.dibHeaderSizes.contains(headerSize) ? .bmp : nil
        }
        if reader.peek(matches: Magic.ico) || reader.peek(matches: Magic.cur) {
            // Four bytes alone are a weak magic; an empty directory is no icon.
            if prefix.count >= 6, prefix[4] == 0, prefix[5] == 0 { return nil }
            return prefix[2] == 1 ? .ico : .cur
        }
        if SVGValidator.looksLikeSVG(prefix) { return .svg }
        return nil
    }

    /// Recognises a format from the first bytes of any collection of bytes.
    /// - Parameter prefix: The first bytes of a payload (or all of it).
    /// - Returns: The format the magic numbers name, or `nil`.
    public static func sniff(_ prefix: some Collection<UInt8>) -> ImageFormat? {
        if let format = prefix.withContiguousStorageIfAvailable({ sniff(UnsafeRawBufferPointer($0)) }) {
            return format
        }
        return Array(prefix).withUnsafeBytes { sniff($0) }
    }
}

/// Magic numbers, built once: sniffing runs on every read of a stored image.
private enum Magic {
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF]
    static let gif87a = Array("GIF87a".utf8)
    static let gif89a = Array("GIF89a".utf8)
    /// Classic TIFF (42) and BigTIFF (43) in both byte orders; BigTIFF is refused by validation.
    static let tiff: [[UInt8]] = [
        [0x49, 0x49, 42, 0], [0x4D, 0x4D, 0, 42], [0x49, 0x49, 43, 0], [0x4D, 0x4D, 0, 43],
    ]
    static let riff = Array("RIFF".utf8)
    static let webp = Array("WEBP".utf8)
    static let ftyp = Array("ftyp".utf8)
    static let bmp = Array("BM".utf8)
    static let ico: [UInt8] = [0, 0, 1, 0]
    static let cur: [UInt8] = [0, 0, 2, 0]
}
