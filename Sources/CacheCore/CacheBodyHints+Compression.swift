import HTTPCore

extension CacheBodyHints {
    /// Media types whose bytes are already compressed, so deflate would only cost time.
    public static let compressedMediaTypes: Set<String> = [
        "image/jpeg", "image/png", "image/gif", "image/webp", "image/avif", "image/heic", "image/jxl",
        "video/mp4", "video/webm", "audio/mpeg", "audio/ogg", "audio/aac",
        "application/zip", "application/gzip", "application/x-gzip", "application/zstd", "application/x-bzip2",
        "application/x-xz", "application/x-7z-compressed", "application/pdf", "application/wasm",
        "font/woff", "font/woff2",
    ]

    /// Whether trying deflate makes sense: not when the body already has a `Content-Encoding` (other
    /// than `identity`), nor when its media type is a compressed format, nor when the response says
    /// `no-transform` (a deflated body would be offered to gzip callers, a transformation), nor when only
    /// identity callers will read it (each of their hits would inflate it).
    public var allowsCompression: Bool {
        if noTransform || identityReadersOnly { return false }
        if let encoding = contentEncoding, !encoding.isEmpty, encoding.lowercased() != "identity" { return false }
        guard let mediaType = StoredEntry.mediaType(of: contentType) else { return true }
        if mediaType.hasPrefix("video/") || mediaType.hasPrefix("audio/") { return false }
        return !Self.compressedMediaTypes.contains(mediaType)
    }
}
