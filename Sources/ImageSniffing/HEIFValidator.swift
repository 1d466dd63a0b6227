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

    /// Major brands of ISO-BMFF video and audio files (ISO/IEC 14496-12 and -14, 3GPP, QuickTime, DASH,
    /// Flash, Apple's M4V): a file that declares itself one of these is a movie, whatever image brand it
    /// also lists as compatible (a video with an AVIF poster brand is not an image to cache as one).
    private static let videoMajorBrands: Set<UInt32> = Set(
        [
            "isom", "iso2", "iso3", "iso4", "iso5", "iso6", "iso7", "iso8", "iso9", "mp41", "mp42", "mp71", "avc1",
            "M4V ", "M4VH", "M4VP", "M4A ", "M4B ", "qt  ", "3gp4", "3gp5", "3gp6", "3gp7", "3gp9", "3g2a", "3g2b",
            "3g2c", "dash", "msdh", "msix", "f4v ", "f4p ", "mmp4", "MSNV", "XAVC", "ndas", "cmfc", "cmf2",
        ].map(brand))

    private static func brand(_ text: String) -> UInt32 {
        text.utf8.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// The format the `ftyp` brands at the start of `prefix` name: AVIF wins over the HEIF brands; none
    /// when the major brand is a video one (``videoMajorBrands``).
    static func brandFormat(ftypPrefix prefix: UnsafeRawBufferPointer) -> ImageFormat? {
        var reader = ByteReader(prefix, format: nil)
        guard let size = try? reader.readUInt32(.bigEndian), size >= 16, size % 4 == 0 else { return nil }
        try? reader.skip(4)
        var majorReader = ByteReader(prefix, format: nil, offset: 8)
        guard let major = try? majorReader.readFourCC(), !videoMajorBrands.contains(major) else { return nil }
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
