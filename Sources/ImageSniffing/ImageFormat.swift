/// An image format that `ImageValidator` recognises from the first bytes of a payload.
///
/// The raw value is a short, stable name suitable for logs, metrics and the cache's `meta` output.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable {
    /// Portable Network Graphics ([PNG spec §5](https://www.w3.org/TR/png-3/#5DataRep)).
    case png
    /// JPEG interchange format ([ITU T.81 Annex B](https://www.w3.org/Graphics/JPEG/itu-t81.pdf)).
    case jpeg
    /// Graphics Interchange Format, 87a and 89a ([GIF89a](https://www.w3.org/Graphics/GIF/spec-gif89a.txt)).
    case gif
    /// Windows bitmap: a `BITMAPFILEHEADER` followed by a DIB.
    case bmp
    /// Tagged Image File Format, little (`II`) or big (`MM`) endian (TIFF 6.0).
    case tiff
    /// Windows icon: an `ICONDIR` of PNG or DIB images.
    case ico
    /// Windows cursor: an icon directory of type 2, with hotspots.
    case cur
    /// WebP in a RIFF container ([RFC 9649](https://www.rfc-editor.org/rfc/rfc9649)).
    case webp
    /// AV1 Image File Format: HEIF (ISO/IEC 23008-12) with brand `avif` or `avis`.
    case avif
    /// HEIF with HEVC images (brands `heic`, `heix`, `mif1`, ...).
    case heic
    /// Scalable Vector Graphics: XML text, recognised but refused unless allowed.
    case svg

    /// The canonical MIME type Larder stores and serves for this format.
    public var mimeType: String {
        switch self {
        case .png: "image/png"
        case .jpeg: "image/jpeg"
        case .gif: "image/gif"
        case .bmp: "image/bmp"
        case .tiff: "image/tiff"
        case .ico: "image/vnd.microsoft.icon"
        case .cur: "image/x-icon"
        case .webp: "image/webp"
        case .avif: "image/avif"
        case .heic: "image/heic"
        case .svg: "image/svg+xml"
        }
    }
}
