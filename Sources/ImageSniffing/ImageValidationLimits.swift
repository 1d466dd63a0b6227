/// Size limits that refuse images too large to decode safely downstream (decompression bombs).
///
/// The validator never decodes pixels, so these limits protect the clients Larder serves, not
/// Larder itself: a 100-byte PNG can declare 2³¹ × 2³¹ pixels.
public struct ImageValidationLimits: Sendable, Hashable {
    /// The largest width × height accepted (computed without overflow).
    ///
    /// The default, 64 Mi pixels (67 108 864), is 256 MiB once decoded to RGBA8: above every
    /// current camera (61 MP full-frame, 48–50 MP phones) and far below the sizes bombs declare.
    public var maxPixels: Int
    /// The largest width or height accepted on its own.
    ///
    /// The default, 65 535, is the largest dimension JPEG and GIF can express; wider images are
    /// almost always bombs or panoramas a webview would not render anyway.
    public var maxDimension: Int

    /// Creates limits.
    /// - Parameters:
    ///   - maxPixels: The largest width × height accepted.
    ///   - maxDimension: The largest width or height accepted.
    public init(maxPixels: Int = 67_108_864, maxDimension: Int = 65_535) {
        self.maxPixels = maxPixels
        self.maxDimension = maxDimension
    }

    /// The defaults: 64 Mi pixels, 65 535 per side.
    public static let `default` = ImageValidationLimits()

    /// Refuses zero, over-long or too-many-pixel dimensions.
    /// - Parameters:
    ///   - width: The declared width.
    ///   - height: The declared height.
    ///   - format: The format, for the rejection.
    /// - Throws: `ImageRejection` with `zero-dimension`, `dimension-limit` or `pixel-limit`.
    func check(width: Int, height: Int, format: ImageFormat) throws(ImageRejection) {
        guard width > 0, height > 0 else {
            throw ImageRejection(format: format, reason: .zeroDimension, detail: "declared size \(width)×\(height)")
        }
        guard width <= maxDimension, height <= maxDimension else {
            throw ImageRejection(
                format: format, reason: .dimensionLimit,
                detail: "declared size \(width)×\(height) exceeds \(maxDimension) per side")
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= maxPixels else {
            throw ImageRejection(
                format: format, reason: .pixelLimit,
                detail: "declared size \(width)×\(height) exceeds \(maxPixels) pixels")
        }
    }
}
