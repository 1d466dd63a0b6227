import CacheCore
import CachePolicy
import HTTPCore
import HTTPServer

/// `GET /filters/explain?url=U[&method=M][&header=Name:%20value...]`: how Larder would treat a request for
/// `U` from this caller, without fetching anything; `method` (a case-sensitive token, GET by default) is
/// the method of the `/fetch` request asked about, for filters' `methods` condition. The request's own headers stand for the caller's (so
/// `curl -A ...` tests a `User-Agent` condition), unless `header` parameters are given: then those, and
/// only those, are the request's headers. A browser cannot set `User-Agent` from a script, so this is how
/// the operator page asks about one.
///
/// The answer: `url`, `method`, `canonicalURL` (with the owning filter's canonicalization), `key` (the primary
/// cache key; a response with `Vary` adds the caller's headers), `version`, `filters` (each with its
/// `verdict`: `owns`, the failed condition, or `not reached`), `owner`, `action`, `defaultPolicy` when no
/// filter owns it, `freshness` (in words), `overrides` (the filter's seconds, `null` when unset), the
/// response-side rules under `store` (with the `tags` the filter adds), and `addresses` (each resolved address with the address policy's
/// verdict). Resolution blocks, so the answer is built on the storage executor.
struct FiltersExplainHandler: APIHandler {
    let api: FiltersAPI

    func handle(_ request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter) throws {
        let (target, assumed, method) = try Self.parameters(of: request)
        let url: CanonicalURL
        switch URLCanonicalizer().canonicalize(target) {
        case .success(let canonical): url = canonical
        case .failure(let rejection):
            throw APIError(
                status: .badRequest, type: .invalidURL, detail: "url is not one Larder fetches: \(rejection).")
        }
        let chain = api.registry.chain
        let explanation = chain.explain(url: url, method: method, headers: assumed ?? request.headers)
        let verdicts = api.addressVerdicts
        api.executor.respond(writer) {
            let body = Self.render(
                target: target, method: method, url: url, chain: chain, explanation: explanation,
                addresses: verdicts(url.host).map { (address: "\($0.address)", verdict: $0.verdict) })
            return FiltersAPI.json(body, version: chain.version)
        }
    }

    /// Reads `url` (required, once), `method` (at most once, a token) and the `header` parameters (each
    /// `Name: value`, a field name of RFC 9110 §5.1 and a colon; repeats allowed).
    /// - Parameter request: the request.
    /// - Returns: the URL, the headers to assume (`nil` when none were given) and the method (GET unless given).
    /// - Throws: `APIError.badQuery` for an unknown, repeated or empty `url`, a repeated or malformed
    ///   `method`, or a malformed `header`.
    static func parameters(of request: HTTPRequest) throws(APIError) -> (
        url: String, headers: HTTPHeaders?, method: HTTPMethod
    ) {
        var url: String?
        var headers: HTTPHeaders?
        var method: HTTPMethod?
        for (name, value) in request.queryParameters {
            switch name {
            case "method":
                guard method == nil else { throw .badQuery("parameter 'method' is given more than once.") }
                guard value.utf8.count <= 32, let token = HTTPMethod(validatingToken: value) else {
                    throw .badQuery("method '\(value.prefix(50))' is not a method token such as GET (RFC 9110 §9.1).")
                }
                method = token
            case "url":
                guard url == nil else { throw .badQuery("parameter 'url' is given more than once.") }
                guard !value.isEmpty else { throw .badQuery("parameter 'url' is empty.") }
                url = value
            case "header":
                let parts = value.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2, HTTPToken.isValid(parts[0]) else {
                    throw .badQuery("header '\(value.prefix(50))' is not 'Name: value'.")
                }
                let fieldValue = parts[1].trimmingHTTPWhitespace()
                guard !fieldValue.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
                    throw .badQuery("header '\(parts[0].prefix(50))' has a control character in its value.")
                }
                headers = headers ?? HTTPHeaders()
                headers?.add(name: String(parts[0]), value: String(fieldValue))
            default:
                throw .badQuery(
                    "unknown parameter '\(name.prefix(50))'; this endpoint takes [\"header\", \"method\", \"url\"].")
            }
        }
        guard let url else { throw .badQuery("parameter 'url' is required.") }
        return (url, headers, method ?? .get)
    }

    static func render(
        target: String, method: HTTPMethod = .get, url: CanonicalURL, chain: FilterChain,
        explanation: FilterExplanation,
        addresses: [(address: String, verdict: some CustomStringConvertible & Sendable)]
    ) -> String {
        let decision = explanation.decision
        let canonical = (try? URLCanonicalizer(options: decision.canonicalization).canonicalize(target).get()) ?? url
        var object = JSONObjectWriter()
        object.add("url", target)
        object.add("method", method.rawValue)
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
        for (name, seconds) in PolicyOverrides.filterMembers {
            if let value = decision.overrides[keyPath: seconds] {
                overrides.add(name, Int(value))
            } else {
                overrides.add(name, nil as String?)
            }
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
        store.add("fetchCanonicalURL", decision.fetchCanonicalURL)
        store.add("tags", json: JSONObjectWriter.array(decision.tags))
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
