import CacheCore
import CachePolicy
import FoundationEssentials
import HTTPCore
import HTTPServer
import Upstream

extension FetchHandler {
    /// Whether `/fetch` answers a method from the cache: GET and HEAD. Every other token is forwarded to
    /// the origin as it came (`forward(_:body:)`).
    static func isCacheable(_ method: HTTPMethod) -> Bool { method == .get || method == .head }

    /// Whether an answer with `status` to `method` invalidates what is stored for the target: a non-error
    /// status (2xx, 3xx) to an unsafe method (RFC 9111 §4.4; `HTTPMethod.isSafe`).
    static func invalidates(method: HTTPMethod, status: Int) -> Bool {
        (200..<400).contains(status) && !method.isSafe
    }

    /// Forwards a request with a method other than GET and HEAD to the origin, with its content, for this
    /// caller alone (never coalesced, never stored), and relays the answer with `X-Cache: BYPASS` and
    /// `Cache-Status: …; fwd=method`. A non-error answer to an unsafe method invalidates first
    /// (`invalidate(after:responseHeaders:)`).
    /// - Parameters:
    ///   - call: the request, after the same checks and filter decision as a GET.
    ///   - body: its content (the server bounds it with `--max-body-bytes`: 413 beyond, before this runs).
    func forward(_ call: Call, body: [UInt8]) {
        fetchAlone(
            call, key: call.primaryKey, method: call.method, content: body, forward: .method)
    }

    /// Invalidates every stored variant of the request's target and of the same-origin URIs its answer's
    /// `Location` and `Content-Location` name (RFC 9111 §4.4), memory tier included, each keyed as a GET of
    /// it would be (canonicalized, then with its owning filter's rules). It is the purge by URL
    /// (`DELETE /cache?url=`): the same store operation, so that a GET whose request left before it and
    /// whose answer is committed after it is committed stale (`CacheBodyHints.purgesBefore`). Fetches under
    /// way for those URLs take no new callers. Runs on the storage executor.
    /// - Parameters:
    ///   - call: the unsafe request.
    ///   - responseHeaders: the origin's answer's fields.
    func invalidate(after call: Call, responseHeaders: HTTPHeaders) {
        for url in Self.invalidatedURLs(call: call, responseHeaders: responseHeaders, decider: service.decider) {
            service.registry.seal(keyURL: url)
            do {
                try service.store.purge(.url(url), soft: false)
            } catch {
                // Nothing else can be done here: the answer still goes out, and the failure is logged.
                service.onStoreFailure(url, error)
            }
        }
    }

    /// The canonical URLs an unsafe request's non-error answer invalidates: the target's key URL, then the
    /// `Location` and `Content-Location` URIs resolved against the target, when they have its origin
    /// (scheme, host and port: RFC 9111 §4.4 forbids invalidating another origin's entries on its word).
    static func invalidatedURLs(call: Call, responseHeaders: HTTPHeaders, decider: any FilterDecider) -> [String] {
        var urls = [call.keyURL]
        guard let base = URL(string: call.fetchURL),
            case .success(let target) = URLCanonicalizer().canonicalize(call.fetchURL)
        else { return urls }
        for name in ["Location", "Content-Location"] {
            guard let value = responseHeaders[name], !value.isEmpty,
                let resolved = URL(string: value, relativeTo: base)?.absoluteString,
                case .success(let canonical) = URLCanonicalizer().canonicalize(resolved),
                canonical.scheme == target.scheme, canonical.host == target.host,
                canonical.effectivePort == target.effectivePort
            else { continue }
            let keyed = decider.keyURL(of: canonical, text: resolved, headers: call.headers)
            if !urls.contains(keyed) { urls.append(keyed) }
        }
        return urls
    }
}
