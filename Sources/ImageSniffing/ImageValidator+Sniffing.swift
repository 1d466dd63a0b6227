extension ImageValidator {
    /// Recognises a format from the first bytes only, without validating anything after them.
    ///
    /// Used to compare the bytes with a declared `Content-Type`. 32 bytes are enough for every
    /// binary format; SVG needs the whole preamble (XML declaration, comments, doctype) before `<svg`.
    /// - Parameter prefix: The first bytes of a payload (or all of it).
    /// - Returns: The format the magic numbers name, or `nil` for anything else (HTML, JSON, ...).
    public static func sniff(_ prefix: UnsafeRawBufferPointer) -> ImageFormat? {
        let reader = ByteReader(prefix, format: nil)
        if reader.peek(matches: PNGValidator.signature) { return .png }
        if reader.peek(matches: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if reader.peek(matches: Array("GIF87a".utf8)) || reader.peek(matches: Array("GIF89a".utf8)) { return .gif }
        if reader.peek(matches: Array("II".utf8)) || reader.peek(matches: Array("MM".utf8)) {
            if reader.peek(matches: [0x49, 0x49, 42, 0]) || reader.peek(matches: [0x4D, 0x4D, 0, 42])
                || reader.peek(matches: [0x49, 0x49, 43, 0]) || reader.peek(matches: [0x4D, 0x4D, 0, 43])
            {
                return .tiff
            }
        }
        if reader.peek(matches: Array("RIFF".utf8)), prefix.count >= 12,
            ByteReader(prefix, format: nil, offset: 8).peek(matches: Array("WEBP".utf8))
        {
            return .webp
        }
        if prefix.count >= 8, ByteReader(prefix, format: nil, offset: 4).peek(matches: Array("ftyp".utf8)) {
            return HEIFValidator.brandFormat(ftypPrefix: prefix)
        }
        if reader.peek(matches: Array("BM".utf8)) {
            guard prefix.count >= 18 else { return .bmp }
            let headerSize = UInt32(prefix[14]) | UInt32(prefix[15]) << 8 | UInt32(prefix[16]) << 16
                | UInt32(prefix[17]) << 24
            return BMPValidator.dibHeaderSizes.contains(headerSize) ? .bmp : nil
        }
        if reader.peek(matches: [0, 0, 1, 0]) || reader.peek(matches: [0, 0, 2, 0]) {
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
