import CacheCore
import CachePolicy
import HTTPCore
import HTTPServer

/// `GET /filters/explain?url=U`: how Larder would treat a request for `U` from this caller, without
/// fetching anything. The request's own headers stand for the caller's (so `curl -A ...` tests a
/// `User-Agent` condition).
///
/// The answer: `url`, `canonicalURL` (with the owning filter's canonicalization), `key` (the primary
/// cache key; a response with `Vary` adds the caller's headers), `version`, `filters` (each with its
/// `verdict`: `owns`, the failed condition, or `not reached`), `owner`, `action`, `defaultPolicy` when no
/// filter owns it, `freshness` (in words), `overrides` (the filter's seconds, `null` when unset), the
/// response-side rules under `store`, and `addresses` (each resolved address with the address policy's
/// verdict). Resolution blocks, so the answer is built on the storage executor.
struct FiltersExplainHandler: HTTPResponder {
    let api: FiltersAPI

    func respond(to request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter) {
        let target: String
        let url: CanonicalURL
        do {
            guard let given = try CacheAPI.query(of: request, allowed: ["url"])["url"] else {
                throw APIError.badQuery("parameter 'url' is required.")
            }
            target = given
            switch URLCanonicalizer().canonicalize(given) {
            case .success(let canonical): url = canonical
            case .failure(let rejection):
                throw FiltersFailure(
                    status: .badRequest, type: FiltersProblemType.invalidURL,
                    detail: "url is not one Larder fetches: \(rejection).")
            }
        } catch {
            writer.send(FiltersAPI.errorResponse(error))
            return
        }
        let chain = api.registry.chain
        let explanation = chain.explain(url: url, headers: request.headers)
        let verdicts = api.addressVerdicts
        api.respondChanging(writer) {
            let body = Self.render(
                target: target, url: url, chain: chain, explanation: explanation,
                addresses: verdicts(url.host).map { (address: "\($0.address)", verdict: $0.verdict) })
            return FiltersAPI.json(body, version: chain.version)
        }
    }

    static func render(
        target: String, url: CanonicalURL, chain: FilterChain, explanation: FilterExplanation,
        addresses: [(address: String, verdict: some CustomStringConvertible & Sendable)]
    ) -> String {
        let decision = explanation.decision
        let canonical = (try? URLCanonicalizer(options: decision.canonicalization).canonicalize(target).get()) ?? url
        var object = JSONObjectWriter()
        object.add("url", target)
        object.add("canonicalURL", canonical.string)
        object.add("key", CacheKey.make(canonicalURL: canonical.string).hex)
        object.add("version", chain.version)
        let steps = explanation.steps.map { step in
            var item = JSONObjectWriter()
            item.add("name", step.filter)
            item.add("verdict", step.verdict)
            return item.text
        }
        object.add("filters", json: "[" + steps.joined(separator: ",") + "]")
        object.add("owner", explanation.owner)
        object.add("action", decision.action.rawValue)
        if explanation.owner == nil { object.add("defaultPolicy", chain.defaultPolicy.rawValue) }
        object.add("freshness", FilterChain.freshnessRule(of: decision))
        var overrides = JSONObjectWriter()
        let seconds: [(String, Int64?)] = [
            ("ttl", decision.overrides.ttl), ("minTtl", decision.overrides.minTtl),
            ("maxTtl", decision.overrides.maxTtl),
            ("staleIfError", decision.overrides.staleIfError),
            ("staleWhileRevalidate", decision.overrides.staleWhileRevalidate),
        ]
        for (name, value) in seconds {
            if let value { overrides.add(name, Int(value)) } else { overrides.add(name, nil as String?) }
        }
        object.add("overrides", json: overrides.text)
        var store = JSONObjectWriter()
        store.add("contentTypes", json: JSONObjectWriter.array(decision.contentTypes))
        if let maxBytes = decision.maxBytes {
            store.add("maxBytes", maxBytes)
        } else {
            store.add("maxBytes", nil as String?)
        }
        store.add("validateImage", decision.validateImage)
        store.add("allowSVG", decision.allowSVG)
        store.add("ignoreNoStore", decision.ignoreNoStore)
        store.add("ignoreQuery", decision.canonicalization.ignoreQuery)
        store.add("dropParams", json: JSONObjectWriter.array(decision.canonicalization.dropParams.map(\.pattern)))
        object.add("store", json: store.text)
        let rows = addresses.map { row in
            var item = JSONObjectWriter()
            item.add("address", row.address)
            item.add("verdict", row.verdict.description)
            return item.text
        }
        object.add("addresses", json: "[" + rows.joined(separator: ",") + "]")
        return object.text
    }
}
