import CacheCore
public import HTTPCore
public import HTTPServer

/// `GET /cache`: a page of entries, newest first, as
/// `{"entries": [...], "nextCursor": "..." | null}`.
///
/// Parameters: `limit` (1…1000, default 50), `cursor` (the previous page's `nextCursor`), `host`, `prefix`
/// (of the canonical URL), `type` (`text/html` or `image/*`), `tag` (repeatable: entries carrying any of
/// them). Anything else is 400.
public struct CacheListHandler: APIHandler {
    /// The page size when `limit` is absent.
    public static let defaultLimit = 50
    /// The largest `limit` accepted.
    public static let maxLimit = 1000

    private let api: CacheAPI

    /// Creates the handler.
    /// - Parameter api: the store and executor.
    public init(api: CacheAPI) { self.api = api }

    /// Answers one listing request.
    public func handle(_ request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter) throws {
        let query = try Self.makeQuery(request)
        let store = api.store
        api.executor.respond(writer) {
            let page = try store.list(query)
            var object = JSONObjectWriter()
            object.add("entries", json: "[" + page.entries.map(CacheEntryJSON.summary).joined(separator: ",") + "]")
            object.add("nextCursor", page.nextCursor)
            return CacheAPI.json(object.text)
        }
    }

    /// Reads the listing parameters.
    /// - Parameter request: the request.
    /// - Returns: the store query.
    /// - Throws: `APIError.badQuery` for a bad parameter.
    static func makeQuery(_ request: HTTPRequest) throws(APIError) -> CacheEntryQuery {
        let (values, lists) = try CacheAPI.parameters(
            of: request, allowed: ["limit", "cursor", "host", "prefix", "type", "tag"], repeatable: ["tag"])
        var limit = defaultLimit
        if let text = values["limit"] {
            guard let value = Int(text), (1...maxLimit).contains(value) else {
                throw .badQuery("limit '\(text.prefix(20))' is not an integer in 1...\(maxLimit).")
            }
            limit = value
        }
        if let type = values["type"] {
            let parts = type.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, parts[0] != "*" else {
                throw .badQuery("type '\(type.prefix(50))' is not a media type (text/html) or a range (image/*).")
            }
        }
        var query = CacheEntryQuery(
            host: values["host"], urlPrefix: values["prefix"], contentType: values["type"], limit: limit,
            cursor: values["cursor"])
        query.tags = try CacheAPI.tags(lists["tag"] ?? [])
        return query
    }
}
