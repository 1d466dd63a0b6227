import CacheCore
import CachePolicy
import HTTPCore
import HTTPServer
import Upstream

/// `GET|HEAD /fetch?url=U`: validates the request on the connection's queue, asks the filter chain who
/// owns it, then answers from the store or the origin (see `FetchHandler+Lookup`, `+Origin`, `+Stored`).
///
/// Checks, in order: exactly one non-empty `url` (400); the URL canonicalizes (`URLCanonicalizer`) and
/// passes the origin client's own validation (`OriginURL`) (400); the request does not carry our own
/// `Via` pseudonym (508, loop guard); the owning filter does not `deny` it (403).
struct FetchHandler: HTTPResponder {
    let service: FetchService

    /// What the later steps need about one request.
    struct Call: Sendable {
        let method: HTTPMethod
        let headers: HTTPHeaders
        /// The URL fetched: the target canonicalized with default options.
        let fetchURL: String
        /// The URL the key is computed from: canonicalized with the owning filter's options.
        let keyURL: String
        let decision: FilterDecision
        let writer: HTTPResponseWriter
    }

    func respond(to request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter) {
        switch makeCall(request, writer: writer) {
        case .failure(let error):
            writer.send(error.makeResponse())
        case .success(let call):
            switch call.decision.action {
            case .deny:
                let owner = call.decision.filterName.map { "filter '\($0)'" } ?? "the default policy"
                writer.send(
                    APIError(status: .forbidden, type: FetchProblemType.denied, detail: "Denied by \(owner).")
                        .makeResponse())
            case .bypass:
                bypass(call)
            case .cache:
                if let response = hotHit(call) { return writer.send(response) }
                service.executor.submit { lookUp(call) }
            }
        }
    }

    private func makeCall(_ request: HTTPRequest, writer: HTTPResponseWriter) -> Result<Call, APIError> {
        let urls = request.queryParameters.filter { $0.name == "url" }.map(\.value)
        guard urls.count == 1, let text = urls.first, !text.isEmpty else {
            return .failure(.invalidFetchURL("Give exactly one non-empty url parameter: /fetch?url=<absolute URL>."))
        }
        let canonical: CanonicalURL
        switch URLCanonicalizer().canonicalize(text) {
        case .success(let url): canonical = url
        case .failure(let rejection): return .failure(.invalidFetchURL(rejection.description))
        }
        do {
            _ = try OriginURL(validating: canonical.string, maximumLength: service.client.configuration.maxURLLength)
        } catch {
            return .failure(.invalidFetchURL(error.description))
        }
        if OriginHeaderForwarding.isLoop(requestHeaders: request.headers, viaName: service.configuration.viaName) {
            return .failure(
                APIError(
                    status: .loopDetected, type: FetchProblemType.loopDetected,
                    detail:
                        "The request already passed through this Larder (Via names '\(service.configuration.viaName)')."
                ))
        }
        let decision = service.decider.decide(url: canonical, headers: request.headers)
        var keyURL = canonical.string
        if decision.canonicalization != URLCanonicalizer.Options(),
            case .success(let keyed) = URLCanonicalizer(options: decision.canonicalization).canonicalize(text)
        {
            keyURL = keyed.string
        }
        return .success(
            Call(
                method: request.method, headers: request.headers, fetchURL: canonical.string, keyURL: keyURL,
                decision: decision, writer: writer))
    }
}
