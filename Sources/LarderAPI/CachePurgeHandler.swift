import CacheCore
import CachePolicy
public import HTTPCore
public import HTTPServer

/// `DELETE /cache`: purges the entries the parameters select and answers `{"purged": N}`.
///
/// | parameter | selects |
/// | --- | --- |
/// | none | every entry |
/// | `url=U` | every stored variant (`Vary`) of `U`, canonicalized as `/fetch` does with the filter that owns it for this request's headers |
/// | `tag=T` (repeatable: a union) | entries tagged `T` (`Surrogate-Key`, `Cache-Tag`, a filter's `tags`) |
/// | `host=H` | entries of host `H` |
/// | `prefix=P` | entries whose canonical URL starts with `P` |
/// | `soft=true` | marks them stale instead (`{"purged": N, "soft": true}`) |
/// | `dryRun=true` | changes nothing: `{"dryRun": true, "count": N, "keys": [...]}` (the first 50, newest first) |
///
/// Different selecting parameters together intersect. Anything else, a repeated parameter (but `tag`) or
/// a value other than `true`/`false` is 400: a typo must not widen a purge to everything.
public struct CachePurgeHandler: APIHandler {
    /// The keys a dry run lists.
    public static let dryRunKeys = 50

    private let api: CacheAPI

    /// Creates the handler.
    /// - Parameter api: the store, executor, filter decider and metrics.
    public init(api: CacheAPI) { self.api = api }

    /// What one purge request asks for.
    struct Request: Equatable {
        var scope: CachePurgeScope
        var soft = false
        var dryRun = false
    }

    /// Answers one purge request.
    public func handle(_ request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter) throws {
        let purge = try Self.parse(request, decider: api.decider)
        let store = api.store
        let metrics = api.purgeMetrics
        api.purges.respond(writer) {
            var object = JSONObjectWriter()
            if purge.dryRun {
                let preview = try store.previewPurge(purge.scope, soft: purge.soft, limit: Self.dryRunKeys)
                object.add("dryRun", true)
                if purge.soft { object.add("soft", true) }
                object.add("count", preview.count)
                object.add("keys", json: JSONObjectWriter.array(preview.keys.map(\.hex)))
                return CacheAPI.json(object.text)
            }
            let purged = try store.purge(purge.scope, soft: purge.soft)
            metrics.purged(kind: purge.scope.kind, entries: purged, soft: purge.soft)
            object.add("purged", purged)
            if purge.soft { object.add("soft", true) }
            return CacheAPI.json(object.text)
        }
    }

    /// Reads the parameters.
    /// - Parameters:
    ///   - request: the request; its headers choose the filter that canonicalizes `url`.
    ///   - decider: the filter chain.
    /// - Returns: the purge.
    /// - Throws: `APIError.badQuery` for a bad, unknown or repeated parameter.
    static func parse(_ request: HTTPRequest, decider: any FilterDecider) throws(APIError) -> Request {
        let (values, lists) = try CacheAPI.parameters(
            of: request, allowed: ["url", "tag", "host", "prefix", "soft", "dryRun"], repeatable: ["tag"])
        let tags = try CacheAPI.tags(lists["tag"] ?? [])
        var purge = Request(scope: CachePurgeScope(host: values["host"], urlPrefix: values["prefix"], tags: tags))
        purge.soft = try flag("soft", values["soft"])
        purge.dryRun = try flag("dryRun", values["dryRun"])
        if let url = values["url"] {
            purge.scope.url = try canonicalURL(url, headers: request.headers, decider: decider)
        }
        return purge
    }

    /// The URL as `/fetch` keys it: canonicalized, then again with the owning filter's options (`ignoreQuery`,
    /// `dropParams`), the filter chosen with `headers` as a `/fetch` request carrying them would choose it.
    /// - Throws: `APIError.badQuery` for a URL `/fetch` refuses.
    static func canonicalURL(_ text: String, headers: HTTPHeaders, decider: any FilterDecider) throws(APIError)
        -> String
    {
        let canonical: CanonicalURL
        switch URLCanonicalizer().canonicalize(text) {
        case .success(let url): canonical = url
        case .failure(let rejection): throw .badQuery("url is not one Larder fetches: \(rejection).")
        }
        return decider.keyURL(of: canonical, text: text, headers: headers)
    }

    private static func flag(_ name: String, _ value: String?) throws(APIError) -> Bool {
        switch value {
        case nil, "false": return false
        case "true": return true
        case let other?: throw .badQuery("parameter '\(name)' must be true or false, not '\(other.prefix(20))'.")
        }
    }
}
