// Crafted TIFF, ICO/CUR, WebP and HEIF files.

extension Crafted {
    // MARK: TIFF

    /// A one-strip TIFF in either byte order; `nextIFD` and the tags can be overridden.
    static func tiff(
        bigEndian: Bool = false, width: Int = 2, height: Int = 2, nextIFD: Int = 0, dropTag: Int? = nil,
        stripOffset: Int? = nil, stripLength: Int? = nil, dataBytes: Int? = nil
    ) -> [UInt8] {
        let u16 = bigEndian ? be16 : le16
        let u32 = bigEndian ? be32 : le32
        func entry(_ tag: Int, _ type: Int, _ value: Int) -> [UInt8] {
            let field = type == 3 ? u16(value) + [0, 0] : u32(value)
            return u16(tag) + u16(type) + u32(1) + field
        }
        let pixels = [UInt8](repeating: 0xAB, count: dataBytes ?? width * height)
        let tags = [
            (256, 3, width), (257, 4, height), (258, 3, 8), (262, 3, 1),
            (273, 4, stripOffset ?? 8), (277, 3, 1), (278, 4, height), (279, 4, stripLength ?? pixels.count),
        ]
        .filter { $0.0 != dropTag }
        let ifdOffset = 8 + pixels.count + pixels.count % 2
        var bytes = (bigEndian ? ascii("MM") + be16(42) : ascii("II") + le16(42)) + u32(ifdOffset)
        bytes += pixels + [UInt8](repeating: 0, count: pixels.count % 2)
        bytes += u16(tags.count) + tags.flatMap { entry($0.0, $0.1, $0.2) } + u32(nextIFD)
        return bytes
    }

    // MARK: ICO and CUR

    /// An icon directory (type 1 ICO or 2 CUR) holding the given images.
    static func icon(type: Int = 1, images: [(width: Int, height: Int, data: [UInt8])]) -> [UInt8] {
        var header = le16(0) + le16(type) + le16(images.count)
        var offset = 6 + 16 * images.count
        var data: [UInt8] = []
        for image in images {
            let hotspot = type == 2 ? le16(1) + le16(2) : le16(1) + le16(32)
            header += [UInt8(image.width & 0xFF), UInt8(image.height & 0xFF), 0, 0] + hotspot
            header += le32(image.data.count) + le32(offset)
            offset += image.data.count
            data += image.data
        }
        return header + data
    }

    /// An icon DIB: BITMAPINFOHEADER with doubled height, colour rows, then the AND mask rows.
    static func iconDIB(width: Int = 4, height: Int = 4, bitCount: Int = 32, withMask: Bool = true) -> [UInt8] {
        let colour = (width * bitCount + 31) / 32 * 4 * height
        let mask = withMask ? (width + 31) / 32 * 4 * height : 0
        let palette = bitCount <= 8 ? (1 << bitCount) * 4 : 0
        let dib =
            le32(40) + le32(width) + le32(height * 2) + le16(1) + le16(bitCount) + le32(0) + le32(colour + mask)
            + le32(0) + le32(0) + le32(0) + le32(0)
        return dib + [UInt8](repeating: 0, count: palette) + [UInt8](repeating: 0x7F, count: colour + mask)
    }

    // MARK: WebP

    static func riffChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        ascii(type) + le32(data.count) + data + (data.count % 2 == 1 ? [0] : [])
    }

    static func webp(_ chunks: [[UInt8]]) -> [UInt8] {
        let body = ascii("WEBP") + chunks.joined()
        return ascii("RIFF") + le32(body.count) + body
    }

    static func vp8L(width: Int, height: Int, signature: UInt8 = 0x2F, version: Int = 0) -> [UInt8] {
        let bits = (width - 1) | (height - 1) << 14 | 1 << 28 | version << 29
        return riffChunk("VP8L", [signature] + le32(bits) + [0x00, 0x11])
    }

    static func vp8(width: Int, height: Int, keyFrame: Bool = true, startCode: [UInt8] = [0x9D, 0x01, 0x2A]) -> [UInt8]
    {
        let tag = (keyFrame ? 0 : 1) | 1 << 4 | 4 << 5  // version 0, shown, first partition 4 bytes
        return riffChunk("VP8 ", le24(tag) + startCode + le16(width) + le16(height) + [1, 2, 3, 4, 5, 6])
    }

    static func vp8X(width: Int, height: Int, flags: UInt8 = 0) -> [UInt8] {
        riffChunk("VP8X", [flags, 0, 0, 0] + le24(width - 1) + le24(height - 1))
    }

    static func anmf(x: Int = 0, y: Int = 0, width: Int, height: Int, image: [UInt8]) -> [UInt8] {
        riffChunk("ANMF", le24(x / 2) + le24(y / 2) + le24(width - 1) + le24(height - 1) + le24(100) + [0] + image)
    }

    // MARK: HEIF (AVIF, HEIC)

    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { be32(payload.count + 8) + ascii(type) + payload }
    static func fullBox(_ type: String, version: UInt8 = 0, flags: Int = 0, _ payload: [UInt8]) -> [UInt8] {
        box(type, [version] + be16(flags >> 8 & 0xFFFF).suffix(2) + [UInt8(flags & 0xFF)] + payload)
    }

    /// The knobs of a crafted HEIF file; the defaults make a valid 6×4 HEIC.
    struct HEIF {
        var brands = ["heic", "mif1", "heic"]
        var width = 6
        var height = 4
        var primary = 1
        var associate = true
        var includeIloc = true
        var extentLengthExtra = 0
        var mdatStyle = MdatStyle.plain
        enum MdatStyle { case plain, largeSize, toEnd }

        func bytes() -> [UInt8] {
            let ftyp = box("ftyp", ascii(brands[0]) + be32(0) + brands.dropFirst().flatMap(ascii))
            let media = [UInt8](repeating: 0x42, count: 9)
            func meta(mdatOffset: Int) -> [UInt8] {
                var children = fullBox("hdlr", be32(0) + ascii("pict") + [UInt8](repeating: 0, count: 13))
                children += fullBox("pitm", be16(primary))
                children += fullBox(
                    "iinf", be16(1) + fullBox("infe", version: 2, be16(1) + be16(0) + ascii("hvc1") + [0]))
                if includeIloc {
                    let extent = be32(mdatOffset) + be32(media.count + extentLengthExtra)
                    children += fullBox("iloc", [0x44, 0x00] + be16(1) + be16(1) + be16(0) + be16(1) + extent)
                }
                let ipco = box("ipco", box("hvcC", [1, 2, 3]) + fullBox("ispe", be32(width) + be32(height)))
                let ipma = fullBox("ipma", be32(1) + be16(1) + [2, 0x81, associate ? 0x82 : 0x81])
                children += box("iprp", ipco + ipma)
                return fullBox("meta", children)
            }
            let mdatHeader: Int = mdatStyle == .largeSize ? 16 : 8
            let metaBytes = meta(mdatOffset: 0)
            let offset = ftyp.count + metaBytes.count + mdatHeader
            let mdat: [UInt8] =
                switch mdatStyle {
                case .plain: box("mdat", media)
                case .largeSize: be32(1) + ascii("mdat") + be64(media.count + 16) + media
                case .toEnd: be32(0) + ascii("mdat") + media
                }
            return ftyp + meta(mdatOffset: offset) + mdat
        }
    }
}
