public import HTTPCore

/// The tags (surrogate keys) a stored response carries: those its origin sent in `Surrogate-Key`
/// (space-separated, the Fastly convention) and `Cache-Tag` (comma-separated, the Cloudflare one), and
/// those the admitting filter adds (`"tags"`). `DELETE /cache?tag=T` purges by them.
///
/// Bounded so that an origin cannot make one entry cost a thousand index rows: at most ``maxCount``
/// tags of at most ``maxBytes`` bytes each. A tag is printable ASCII without space or comma (either would
/// split it), as Fastly's and Cloudflare's are, which also lets the OpenAPI contract state the rule as a
/// pattern. What does not fit or is not printable is dropped and counted in ``dropped``
/// (`larder_tags_dropped_total`); repeats are kept once and not counted; case matters.
public struct EntryTags: Sendable, Equatable {
    /// The most tags one entry keeps.
    public static let maxCount = 64
    /// The longest tag kept, in bytes.
    public static let maxBytes = 256
    /// The response fields tags are read from, lower-cased; they are not forwarded to callers unless
    /// `--forward-tag-headers` says so.
    public static let fieldNames = ["surrogate-key", "cache-tag"]

    /// The tags kept, filter tags first, then in the order the fields list them.
    public private(set) var tags: [String] = []
    /// How many tags were dropped (too many, too long, or not printable).
    public private(set) var dropped = 0

    /// Reads the tags of a response.
    /// - Parameters:
    ///   - headers: the origin's response header section.
    ///   - filterTags: the admitting filter's tags (already validated).
    public init(headers: HTTPHeaders, filterTags: [String] = []) {
        for tag in filterTags { add(Substring(tag)) }
        // Most responses carry neither field: two lookups, no allocation.
        guard headers.contains("Surrogate-Key") || headers.contains("Cache-Tag") else { return }
        for value in headers.values(for: "Surrogate-Key") {
            for tag in value.split(whereSeparator: { $0 == " " || $0 == "\t" }) { add(tag) }
        }
        for value in headers.values(for: "Cache-Tag") {
            for tag in value.split(separator: ",") { add(Substring(tag.trimmingHTTPWhitespace())) }
        }
    }

    private mutating func add(_ tag: Substring) {
        guard !tag.isEmpty else { return }
        guard Self.isValid(tag), tags.count < Self.maxCount else {
            dropped += 1
            return
        }
        let text = String(tag)
        if !tags.contains(text) { tags.append(text) }
    }

    /// Whether a tag can be kept: 1 to ``maxBytes`` bytes of printable ASCII (`!` to `~`) but the comma.
    /// - Parameter tag: the candidate.
    /// - Returns: the verdict.
    public static func isValid(_ tag: some StringProtocol) -> Bool {
        let count = tag.utf8.count
        return count > 0 && count <= maxBytes
            && tag.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ",") }
    }
}
