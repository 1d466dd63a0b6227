public import CacheCore
public import HTTPCore

/// How a stored body answers one request: which form to read, with which status and headers. Pure, so
/// that `/cache/<key>` and `/fetch` hits share it and tests need no store.
///
/// - `Range` (RFC 9110 §14.2) on the identity bytes: one satisfiable range is 206 with `Content-Range`;
///   several ranges are answered with the whole body (200), which RFC 9110 §14.2 allows ("a server MAY
///   ignore the Range header field"), rather than `multipart/byteranges`; none satisfiable is 416. An
///   `If-Range` (RFC 9110 §13.1.5) that does not match the stored strong `ETag` or `Last-Modified` makes
///   the range ignored.
/// - `Accept-Encoding: gzip` (RFC 9110 §12.5.3) with a body stored as deflate chunks, and no range: the
///   stored gzip member as-is, `Content-Encoding: gzip`, and the `ETag` made weak, since the coded bytes
///   are another representation (RFC 9110 §8.8.3; nginx does the same).
/// - A body stored as deflate chunks always answers with `Vary: Accept-Encoding`.
public struct CacheBodyPlan: Sendable, Equatable {
    /// What to send.
    public enum Outcome: Sendable, Equatable {
        /// Read the body in `form` and send it with this status and these headers.
        case send(status: HTTPStatus, form: CacheBodyForm, headers: HTTPHeaders)
        /// No range overlaps the body: 416.
        case unsatisfiable(APIError)
    }

    /// The decision.
    public var outcome: Outcome

    /// Stored fields that describe the framing or the connection, not the representation; the server sets
    /// its own. A stored `Content-Range` is kept (RFC 9111 §3.1 has a cache store and replay every field it
    /// does not know to drop, and an origin may send one on a 200) and replaced only when a range answer
    /// sends Larder's own.
    static let droppedStoredFields = FieldNames([
        "Content-Length", "Transfer-Encoding", "Connection", "Keep-Alive", "Accept-Ranges",
    ])

    /// Fields the plan and its caller may add to the stored ones without the list growing again.
    static let roomForAddedFields = 8

    /// Plans the answer.
    /// - Parameters:
    ///   - entry: the stored entry.
    ///   - requestHeaders: the caller's headers (`Range`, `If-Range`, `Accept-Encoding`).
    public init(entry: StoredEntry, requestHeaders: HTTPHeaders) {
        var headers = Self.replayedFields(of: entry)
        let length = entry.originalSize
        let rangeField = Self.rangeApplies(entry: entry, requestHeaders: requestHeaders) ? requestHeaders["Range"] : nil
        switch ByteRange.resolve(header: rangeField, length: length) {
        case .unsatisfiable:
            outcome = .unsatisfiable(.rangeNotSatisfiable(length: length))
            return
        case .ranges(let ranges) where ranges.count == 1:
            headers.remove(name: "Content-Range")
            headers.add(name: "Content-Range", value: ranges[0].contentRange(completeLength: length))
            outcome = .send(status: .partialContent, form: .range(ranges[0].offsets), headers: headers)
            return
        case .ranges, .whole:
            break
        }
        let form = Self.wholeBodyForm(of: entry, acceptsGzip: AcceptEncoding(requestHeaders).acceptsGzip)
        Self.describe(form, of: entry, in: &headers)
        outcome = .send(status: .ok, form: form, headers: headers)
    }

    /// The form the whole body is sent in: the stored gzip member to a caller that accepts gzip when the
    /// body is stored as deflate chunks (and the origin did not encode it itself), else identity.
    /// - Parameters:
    ///   - entry: the stored entry.
    ///   - acceptsGzip: whether the caller's `Accept-Encoding` accepts gzip.
    public static func wholeBodyForm(of entry: StoredEntry, acceptsGzip: Bool) -> CacheBodyForm {
        acceptsGzip && isGzipCapable(entry) ? .gzip : .identity
    }

    /// The fields sent with the whole body in `form` (`.identity` or `.gzip`): what the plan of a request
    /// without `Range` that picked this form answers with.
    public static func wholeBodyFields(of entry: StoredEntry, form: CacheBodyForm) -> HTTPHeaders {
        var headers = replayedFields(of: entry)
        describe(form, of: entry, in: &headers)
        return headers
    }

    /// The stored fields as every answer replays them: framing fields dropped, `Accept-Ranges` added, and
    /// `Vary: Accept-Encoding` for a body that has a gzip form.
    private static func replayedFields(of entry: StoredEntry) -> HTTPHeaders {
        // Copied once, with room for what is added (Accept-Ranges, Vary, Content-Range or Content-Encoding)
        // and for the few fields a caller puts on top (Larder's four marks).
        var headers = entry.headers.removing(droppedStoredFields, reservingExtra: roomForAddedFields)
        headers.add(name: "Accept-Ranges", value: "bytes")
        if isGzipCapable(entry) { addVary("Accept-Encoding", to: &headers) }
        return headers
    }

    /// The gzip form's `Content-Encoding`, and its `ETag` made weak (the coded bytes are another
    /// representation).
    private static func describe(_ form: CacheBodyForm, of entry: StoredEntry, in headers: inout HTTPHeaders) {
        guard form == .gzip else { return }
        headers.add(name: "Content-Encoding", value: "gzip")
        if let etag = entry.etag, !etag.hasPrefix("W/") { headers.replaceOrAdd(name: "ETag", value: "W/" + etag) }
    }

    /// Whether the body has a gzip form: stored as deflate chunks, of a response the origin did not encode.
    private static func isGzipCapable(_ entry: StoredEntry) -> Bool {
        entry.codec == .deflateChunked && !entry.headers.contains("Content-Encoding")
    }

    /// Whether a `Range` may be honoured: there is no `If-Range`, or it names the stored representation by
    /// a strong entity tag or by its exact `Last-Modified` date (RFC 9110 §13.1.5).
    static func rangeApplies(entry: StoredEntry, requestHeaders: HTTPHeaders) -> Bool {
        guard let condition = requestHeaders["If-Range"] else { return true }
        if condition.hasPrefix("\"") || condition.hasPrefix("W/") {
            guard let asked = EntityTag(parsing: condition), let stored = entry.etag.flatMap(EntityTag.init(parsing:))
            else { return false }
            return asked.matchesStrongly(stored)
        }
        return entry.lastModified == condition
    }

    /// Adds a name to `Vary` unless listed already (or `*`).
    private static func addVary(_ name: String, to headers: inout HTTPHeaders) {
        // The usual stored field is exactly the name ("Vary: Accept-Encoding"): no list to build.
        let values = headers.values(for: "Vary")
        if values.count == 1 && values[0].equalsIgnoringASCIICase(name) { return }
        let listed = headers.listValues(for: "Vary")
        if listed.contains(where: { $0 == "*" || $0.equalsIgnoringASCIICase(name) }) { return }
        headers.replaceOrAdd(name: "Vary", value: (listed + [name]).joined(separator: ", "))
    }
}
