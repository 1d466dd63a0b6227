import CacheCore
import CachePolicy
import HTTPCore
import HTTPServer
import Upstream

/// `/fetch?url=U`: validates the request on the connection's queue, asks the filter chain who owns it,
/// then answers a GET or HEAD from the store or the origin (see `FetchHandler+Lookup`, `+Origin`,
/// `+Stored`), and forwards any other method to the origin uncached (`+Unsafe`, RFC 9111 §4.4).
///
/// Checks, in order, for every method: exactly one non-empty `url` (400); the URL canonicalizes
/// (`URLCanonicalizer`, 400; the origin client's `OriginURL` check runs before any fetch, also 400); the
/// request does not carry our own `Via` pseudonym (508, loop guard); the filter that owns the request
/// with its method does not `deny` it (403).
struct FetchHandler: HTTPResponder {
    let service: FetchService

    /// What the later steps need about one request: made once, read by every step and closure after it,
    /// so one reference rather than a value of ten fields copied into each (about 1 000 instructions of a
    /// hit, callgrind).
    final class Call: Sendable {
        let method: HTTPMethod
        let headers: HTTPHeaders
        /// The request's identifier, forwarded to the origin in place of the caller's unusable one.
        let requestID: HTTPRequestID
        /// The URL fetched: the target canonicalized with default options, or the key URL when the filter
        /// fetches that.
        let fetchURL: String
        /// The URL the key is computed from: canonicalized with the owning filter's options.
        let keyURL: String
        /// `CacheKey.make(canonicalURL: keyURL)`, the key when the URL's responses do not vary.
        let primaryKey: CacheKey
        let decision: FilterDecision
        let writer: HTTPResponseWriter

        init(
            method: HTTPMethod, headers: HTTPHeaders, requestID: HTTPRequestID, fetchURL: String, keyURL: String,
            primaryKey: CacheKey, decision: FilterDecision, writer: HTTPResponseWriter
        ) {
            self.method = method
            self.headers = headers
            self.requestID = requestID
            self.fetchURL = fetchURL
            self.keyURL = keyURL
            self.primaryKey = primaryKey
            self.decision = decision
            self.writer = writer
        }
    }

    func respond(to request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter) {
        // Larder's own credential (`FetchAccess.tokenField`) never reaches the filter chain, the cache rules
        // or an origin, whether or not caller tokens are configured.
        if request.headers.contains(FetchAccess.tokenField) {
            var request = request
            request.headers.remove(name: FetchAccess.tokenField)
            return respond(to: request, context: context, writer: writer)
        }
        switch makeCall(request, requestID: context.requestID, writer: writer) {
        case .failure(let error):
            writer.send(error.makeResponse())
        case .success(let call):
            switch call.decision.action {
            case .deny:
                let owner = call.decision.filterName.map { "filter '\($0)'" } ?? "the default policy"
                writer.send(
                    APIError(status: .forbidden, type: .deniedByFilter, detail: "Denied by \(owner).")
                        .makeResponse())
            case _ where !Self.isCacheable(call.method):
                forward(call, body: request.body)
            case .bypass:
                bypass(call)
            case .cache:
                if let response = hotHit(call) { return writer.send(response) }
                // A URL the store has never held is a miss here, without the hop to the storage executor.
                guard service.store.mayHold(primaryKey: call.primaryKey) else {
                    return miss(call, key: call.primaryKey, forward: .uriMiss)
                }
                service.executor.submit { lookUp(call) }
            }
        }
    }

    private func makeCall(
        _ request: HTTPRequest, requestID: HTTPRequestID, writer: HTTPResponseWriter
    ) -> Result<Call, APIError> {
        guard let text = Self.urlParameter(in: request.query), !text.isEmpty else {
            return .failure(.invalidFetchURL("Give exactly one non-empty url parameter: /fetch?url=<absolute URL>."))
        }
        let canonical: CanonicalURLMemo.Entry
        switch service.canonicalURLs.canonicalize(text) {
        case .success(let entry): canonical = entry
        case .failure(let rejection): return .failure(.invalidFetchURL(rejection.description))
        }
        // The origin client validates the URL again (`OriginURL`) before anything is sent; a URL it
        // refuses can only miss, and its refusal is the same 400. Hits skip that second parse.
        if request.headers.contains("Via"),
            OriginHeaderForwarding.isLoop(requestHeaders: request.headers, viaName: service.configuration.viaName)
        {
            return .failure(
                APIError(
                    status: .loopDetected, type: .loopDetected,
                    detail:
                        "The request already passed through this Larder (Via names '\(service.configuration.viaName)')."
                ))
        }
        let decision = service.decider.decide(url: canonical.url, method: request.method, headers: request.headers)
        var fetchURL = canonical.string
        var keyURL = fetchURL
        if let keyed = decision.keyedURL(for: text) {
            keyURL = keyed
            // The caller's parameters reach the origin unless the filter says they must not.
            if decision.fetchCanonicalURL { fetchURL = keyed }
        }
        // The memo hashed the default canonical form; a filter's own key URL is hashed here.
        let primaryKey = keyURL == canonical.string ? canonical.primaryKey : CacheKey.make(canonicalURL: keyURL)
        return .success(
            Call(
                method: request.method, headers: request.headers, requestID: requestID,
                fetchURL: fetchURL, keyURL: keyURL, primaryKey: primaryKey, decision: decision, writer: writer))
    }

    /// The one `url` query parameter, form-decoded; `nil` when absent or given more than once. Scans the
    /// query once without building the list of every parameter (this runs on every request).
    static func urlParameter(in query: String?) -> String? {
        guard var query else { return nil }
        query.makeContiguousUTF8()
        // One pass over the bytes, no list of pairs: this runs on every request.
        let result = query.utf8.withContiguousStorageIfAvailable { bytes -> (text: String, encoded: Bool)? in
            var found: (text: String, encoded: Bool)?
            var start = 0
            while start <= bytes.count {
                var end = start
                while end < bytes.count && bytes[end] != UInt8(ascii: "&") { end += 1 }
                var nameEnd = start
                while nameEnd < end && bytes[nameEnd] != UInt8(ascii: "=") { nameEnd += 1 }
                if nameEnd - start == 3 && bytes[start] == UInt8(ascii: "u") && bytes[start + 1] == UInt8(ascii: "r")
                    && bytes[start + 2] == UInt8(ascii: "l")
                {
                    guard found == nil else { return nil }
                    let value = UnsafeBufferPointer(rebasing: bytes[min(nameEnd + 1, end)..<end])
                    found = (
                        String(decoding: value, as: UTF8.self),
                        value.contains { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }
                    )
                }
                start = end + 1
            }
            return found
        }
        guard let found = result ?? nil else { return nil }
        return found.encoded ? found.text.formDecoded() : found.text
    }
}
