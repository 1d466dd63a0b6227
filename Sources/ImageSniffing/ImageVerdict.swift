/// The answer of `ImageValidator.validate(_:)`: a valid image and what it is, or why it was refused.
public enum ImageVerdict: Sendable, Hashable {
    /// The bytes are a structurally complete image within the limits.
    case valid(ImageInfo)
    /// The bytes were refused; the rejection names a stable reason code.
    case invalid(ImageRejection)

    /// The image description when valid, otherwise `nil`.
    public var info: ImageInfo? {
        if case .valid(let info) = self { return info }
        return nil
    }

    /// The rejection when invalid, otherwise `nil`.
    public var rejection: ImageRejection? {
        if case .invalid(let rejection) = self { return rejection }
        return nil
    }
}
