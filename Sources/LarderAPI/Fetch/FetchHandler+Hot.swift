import CacheCore
import CachePolicy
import FoundationEssentials
import HTTPCore
import HTTPServer

extension FetchHandler {
    /// Request fields that need the full stored-answer path (ranges, conditionals, credentials).
    static let fieldsNeedingTheStore = [
        "Range", "If-Range", "If-None-Match", "If-Modified-Since", "Authorization",
    ]

    /// What a plain hit needs to know of the request's fields, in one pass instead of one lookup per name
    /// (only names of the lengths looked for are compared at all): whether one of `fieldsNeedingTheStore`
    /// is there, and whether `Accept-Encoding` is.
    static func scanFields(_ headers: HTTPHeaders) -> (needsTheStore: Bool, hasAcceptEncoding: Bool) {
        var hasAcceptEncoding = false
        for field in headers {
            switch field.name.utf8.count {
            case 5, 8, 13, 17:
                if fieldsNeedingTheStore.contains(where: { field.name.equalsIgnoringASCIICase($0) }) {
                    return (true, hasAcceptEncoding)
                }
            case 15:
                if field.name.equalsIgnoringASCIICase("Accept-Encoding") { hasAcceptEncoding = true }
            default:
                break
            }
        }
        return (false, hasAcceptEncoding)
    }

    /// Answers a fresh hit on a hot entry right here, on the connection's queue: no storage call, no
    /// thread hop, no key hash, and the response head copied from bytes prepared once per second.
    /// Entries that vary on `Accept-Encoding` alone are found by the caller's ``EncodingVariant``, the
    /// same class their stored keys are computed from. Anything the plain replay of a fresh entry cannot
    /// answer (a range, a conditional, a gzip-capable entry whose gzip form is not in memory for a gzip
    /// caller, a variant not in memory, staleness) returns `nil` and takes the full path on the storage
    /// executor.
    /// Only GET and HEAD come here: `respond` forwards every other method first.
    /// - Returns: the response, or `nil`.
    func hotHit(_ call: Call) -> HTTPResponse? {
        let fields = Self.scanFields(call.headers)
        if fields.needsTheStore { return nil }
        let acceptsGzip = fields.hasAcceptEncoding && AcceptEncoding(call.headers).acceptsGzip
        guard let hot = service.hot.entry(forURL: call.keyURL, gzip: acceptsGzip) else { return nil }
        // The gzip form of an entry that does not vary is not in memory yet: the full path reads it.
        if acceptsGzip && hot.variant == .identity && hot.stored.codec == .deflateChunked { return nil }
        let status = hot.stored.status
        if status.forbidsContent { return nil }
        let now = service.clock()
        let decision = ServePolicy.decide(
            stored: hot.facts, requestMethod: call.method, requestHeaders: call.headers,
            now: Int64(now.timeIntervalSince1970), overrides: call.decision.overrides)
        guard case .fresh(let age, let ttl) = decision else { return nil }
        let head = hot.preparedHead(age: max(0, age), ttl: ttl) { age, ttl in
            var headers = hot.headers
            headers.add(name: "Age", value: String(age))
            headers.add(name: "X-Cache", value: XCache.hit.rawValue)
            headers.add(
                name: "Cache-Status",
                value: CacheStatus(cacheName: service.configuration.cacheName, hit: true, ttl: ttl).fieldValue)
            headers.add(name: "X-Cache-Key", value: hot.stored.key.hex)
            var bytes: [UInt8] = []
            bytes.reserveCapacity(512)
            HTTPResponse(status: status, headers: headers).serializeFields(
                into: &bytes, framing: .contentLength(hot.bodyCount))
            return bytes
        }
        if let batch = service.hot.countHit(hot) {
            let store = service.store
            service.executor.submit {
                for (key, count) in batch { store.recordHits(key, count: count, at: now) }
            }
        }
        let body: HTTPResponseBody = hot.file.map { .file($0) } ?? .bytes(hot.body)
        return HTTPResponse(preparedHead: head, status: status, body: body, headers: Self.xCacheFields(.hit))
    }
}
