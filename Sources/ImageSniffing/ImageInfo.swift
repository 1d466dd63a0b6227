/// What a successful validation learned about an image, read from its headers only.
public struct ImageInfo: Sendable, Hashable {
    /// The format the bytes are in (which may disagree with a declared `Content-Type`).
    public var format: ImageFormat
    /// Width in pixels; for SVG, which has no intrinsic pixel size here, 0.
    public var width: Int
    /// Height in pixels; for SVG, 0.
    public var height: Int

    /// Creates the description of a valid image.
    /// - Parameters:
    ///   - format: The recognised format.
    ///   - width: Width in pixels.
    ///   - height: Height in pixels.
    public init(format: ImageFormat, width: Int, height: Int) {
        self.format = format
        self.width = width
        self.height = height
    }
}
