/// Validates image payloads from their bytes: the format, the structure end to end, and the size.
///
/// The validator reads headers and walks chunks, segments, blocks, IFDs and boxes; it never decodes
/// pixels (a PNG's image data is inflated, to check it against the header, but not unfiltered), runs in
/// time linear in the input and in the size of that image data, and allocates nothing proportional to
/// the sizes a file claims (every length is compared with the bytes present before it is used; PNG data
/// is inflated a slice at a time). It answers what
/// Larder needs to decide whether a response is worth storing: a complete image of a known format
/// within the limits, or a stable reason code.
///
/// ```swift
/// let validator = ImageValidator(limits: .default, allowSVG: false)
/// switch validator.validate(body) {
/// case .valid(let info): store(body, as: info.format.mimeType)
/// case .invalid(let rejection): bypass(reason: rejection.reason.rawValue)
/// }
/// ```
public struct ImageValidator: Sendable {
    /// The size limits applied to every image (and every icon in an ICO or CUR file).
    public var limits: ImageValidationLimits
    /// Whether SVG text is accepted; when `false` it is refused with `svg-not-allowed`.
    public var allowSVG: Bool
    /// How far the compressed data inside an image is checked.
    public var depth: Depth

    /// How far a validation goes.
    public enum Depth: Sendable {
        /// Everything, a PNG's image data inflated and checked against its header included: for bytes
        /// from an origin, before they are stored.
        case full
        /// The structure, the checksums and the limits, without inflating: for bytes a full validation
        /// already accepted, read back from the store, where what can go wrong is a changed byte (which
        /// a chunk's CRC catches) and inflating every hit would cost milliseconds.
        case structure
    }

    /// Creates a validator.
    /// - Parameters:
    ///   - limits: The size limits; `.default` unless a setting says otherwise.
    ///   - allowSVG: Whether SVG payloads are valid (a filter has to allow them explicitly).
    ///   - depth: `.full` for admission, `.structure` for bytes read back from the store.
    public init(limits: ImageValidationLimits = .default, allowSVG: Bool = false, depth: Depth = .full) {
        self.limits = limits
        self.allowSVG = allowSVG
        self.depth = depth
    }

    /// Validates a whole payload.
    /// - Parameter bytes: The complete body, borrowed for the duration of the call.
    /// - Returns: `.valid` with the format and dimensions, or `.invalid` with the reason.
    public func validate(_ bytes: UnsafeRawBufferPointer) -> ImageVerdict {
        do throws(ImageRejection) {
            return .valid(try validateOrThrow(bytes))
        } catch {
            return .invalid(error)
        }
    }

    /// Validates a whole payload held in any collection of bytes (`[UInt8]`, `ArraySlice`, ...).
    /// - Parameter bytes: The complete body; copied once only if it is not contiguous.
    /// - Returns: `.valid` with the format and dimensions, or `.invalid` with the reason.
    public func validate(_ bytes: some Collection<UInt8>) -> ImageVerdict {
        if let verdict = bytes.withContiguousStorageIfAvailable({ validate(UnsafeRawBufferPointer($0)) }) {
            return verdict
        }
        return Array(bytes).withUnsafeBytes { validate($0) }
    }

    /// Validates a whole payload, throwing the rejection instead of returning it.
    /// - Parameter bytes: The complete body.
    /// - Returns: The format and dimensions.
    /// - Throws: `ImageRejection` when the payload is refused.
    public func validateOrThrow(_ bytes: UnsafeRawBufferPointer) throws(ImageRejection) -> ImageInfo {
        guard let format = Self.sniff(bytes) else {
            throw ImageRejection(
                format: nil, reason: .unknownFormat, detail: "the first bytes match no supported image format")
        }
        switch format {
        case .png: return try PNGValidator.validate(bytes, limits: limits, inflating: depth == .full)
        case .jpeg: return try JPEGValidator.validate(bytes, limits: limits)
        case .gif: return try GIFValidator.validate(bytes, limits: limits)
        case .bmp: return try BMPValidator.validate(bytes, limits: limits)
        case .tiff: return try TIFFValidator.validate(bytes, limits: limits)
        case .ico, .cur:
            return try ICOValidator.validate(bytes, format: format, limits: limits, inflating: depth == .full)
        case .webp: return try WebPValidator.validate(bytes, limits: limits)
        case .avif, .heic: return try HEIFValidator.validate(bytes, format: format, limits: limits)
        case .svg:
            guard allowSVG else {
                throw ImageRejection(format: .svg, reason: .svgNotAllowed, detail: "SVG is refused unless allowed")
            }
            return try SVGValidator.validate(bytes)
        }
    }
}
