/// Validates AVIF and HEIC files: the box walk, `ftyp` brands, and the primary item.
///
/// Reads the HEIF structure of ISO/IEC 23008-12 (§9, §10) as AVIF
/// ([AV1 Image File Format](https://aomediacodec.github.io/av1-avif/)) profiles it: `ftyp` first,
/// then exactly one `meta` box with `pitm` naming the primary item, `iinf` listing it, `iloc`
/// locating every item's extents within the file (or `idat`), and an `ispe` property associated with
/// the primary item in `iprp`, which gives the dimensions. Top-level boxes must tile the file exactly.
enum HEIFValidator {
    private static let avifBrands = ["avif", "avis"].map(brand)
    private static let heicBrands = ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "mif2", "msf1"].map(brand)

    private static func brand(_ text: String) -> UInt32 {
        text.utf8.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// The format the `ftyp` brands at the start of `prefix` name: AVIF wins over the HEIF brands.
    static func brandFormat(ftypPrefix prefix: UnsafeRawBufferPointer) -> ImageFormat? {
        var reader = ByteReader(prefix, format: nil)
        guard let size = try? reader.readUInt32(.bigEndian), size >= 16, size % 4 == 0 else { return nil }
        try? reader.skip(4)
        var sawHEIC = false
        let end = min(Int(size), prefix.count)
        while reader.offset + 4 <= end {
            guard let brand = try? reader.readFourCC() else { return nil }
            if reader.offset == 16 { continue }  // minor version, not a brand
            if avifBrands.contains(brand) { return .avif }
            if heicBrands.contains(brand) { sawHEIC = true }
        }
        return sawHEIC ? .heic : nil
    }

    static func validate(_ bytes: UnsafeRawBufferPointer, format: ImageFormat, limits: ImageValidationLimits)
        throws(ImageRejection) -> ImageInfo
    {
        var file = ByteReader(bytes, format: format)
        let ftyp = try ISOBox(&file, fileOffset: 0)
        guard ftyp.type == fourCC("ftyp"), brandFormat(ftypPrefix: bytes) == format else {
            throw file.rejection(.heifBadBrand, "first box is \(fourCCText(ftyp.type)) or names no \(format) brand")
        }
        var meta: ISOBox?
        while !file.isAtEnd {
            let box = try ISOBox(&file, fileOffset: 0)
            if box.type == fourCC("meta") {
                guard meta == nil else { throw file.rejection(.heifBadBox, "two meta boxes") }
                meta = box
            }
        }
        guard let meta else { throw file.rejection(.heifMissingPrimaryItem, "no meta box") }
        let items = try HEIFItems(meta: meta, format: format)
        try items.checkLocations(fileSize: bytes.count)
        let size = try items.primaryImageSize()
        try limits.check(width: size.width, height: size.height, format: format)
        return ImageInfo(format: format, width: size.width, height: size.height)
    }
}
