import CacheCore
import CachePolicy
import Foundation
import HTTPCore
import HTTPServer

extension FetchHandler {
    /// Request fields that need the full stored-answer path (ranges, conditionals, credentials).
    static let fieldsNeedingTheStore = [
        "Range", "If-Range", "If-None-Match", "If-Modified-Since", "Authorization",
    ]

    /// Answers a fresh hit on a hot entry right here, on the connection's queue: no storage call, no
    /// thread hop. Anything the plain identity replay of a fresh entry cannot answer (a range, a
    /// conditional, a gzip-capable entry for a gzip caller, staleness) returns `nil` and takes the full
    /// path on the storage executor.
    /// - Returns: the response, or `nil`.
    func hotHit(_ call: Call) -> HTTPResponse? {
        guard call.method == .get || call.method == .head,
            !Self.fieldsNeedingTheStore.contains(where: { call.headers.contains($0) })
        else { return nil }
        let key = CacheKey.make(canonicalURL: call.keyURL)
        guard let hot = service.hot.entry(for: key) else { return nil }
        if hot.stored.codec == .deflateChunked && AcceptEncoding(call.headers).acceptsGzip { return nil }
        let now = service.clock()
        let decision = ServePolicy.decide(
            stored: hot.facts, requestMethod: call.method, requestHeaders: call.headers,
            now: Int64(now.timeIntervalSince1970), overrides: call.decision.overrides)
        guard case .fresh(let age, let ttl) = decision else { return nil }
        var headers = hot.headers
        headers.add(name: "Age", value: String(max(0, age)))
        headers.add(name: "X-Cache", value: XCache.hit.rawValue)
        headers.add(
            name: "Cache-Status",
            value: CacheStatus(cacheName: service.configuration.cacheName, hit: true, ttl: ttl).fieldValue)
        headers.add(name: "X-Cache-Key", value: key.hex)
        if let batch = service.hot.countHit(key) {
            let store = service.store
            service.executor.submit {
                for (key, count) in batch { for _ in 0..<count { store.recordHit(key, at: now) } }
            }
        }
        let status = hot.stored.status
        if status.forbidsContent { return HTTPResponse(status: status, headers: headers) }
        return HTTPResponse(status: status, headers: headers, body: .bytes(hot.body))
    }
}
