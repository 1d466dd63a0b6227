import CacheCore
public import HTTPCore
public import HTTPServer

/// `GET|HEAD /cache/<key>`: the stored body with its stored headers, 200 whatever status was stored,
/// streamed from the store (`CacheBodySource`), with `Range` and gzip as `CacheBodyPlan` decides.
///
/// HEAD gets the headers GET would get; a `Range` on HEAD is ignored (RFC 9110 §14.2 defines range
/// handling for GET only). A body found corrupt while streaming is deleted by the store and the
/// connection is aborted mid-body.
public struct CacheBodyHandler: HTTPResponder {
    private let api: CacheAPI

    /// Creates the handler.
    /// - Parameter api: the store and executor.
    public init(api: CacheAPI) { self.api = api }

    /// Answers one body request.
    public func respond(to request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter) {
        let key: CacheKey
        do {
            key = try CacheAPI.key(in: context)
        } catch {
            return writer.send(error.makeResponse())
        }
        var headers = request.headers
        if request.method != .get { headers.remove(name: "Range") }
        let requestHeaders = headers
        let api = self.api
        let isHead = request.method == .head
        api.executor.respond(writer) {
            try Self.makeResponse(api: api, key: key, requestHeaders: requestHeaders, prefetch: !isHead)
        }
    }

    /// Looks the entry up, plans the answer and opens the body; runs on the storage executor.
    private static func makeResponse(
        api: CacheAPI, key: CacheKey, requestHeaders: HTTPHeaders, prefetch: Bool
    ) throws -> HTTPResponse {
        guard let entry = try api.store.entry(for: key) else { throw APIError.notFound(key) }
        switch CacheBodyPlan(entry: entry, requestHeaders: requestHeaders).outcome {
        case .unsatisfiable(let error):
            throw error
        case .send(let status, let form, let headers):
            let reader = try api.store.openBody(of: entry, form: form)
            var onFailure: (@Sendable (any Error) -> Void)?
            if let report = api.onBodyFailure {
                onFailure = { error in report(key, error) }
            }
            let source = CacheBodySource(reader: reader, executor: api.executor, onFailure: onFailure)
            if prefetch { try source.prefetch() }
            return HTTPResponse(status: status, headers: headers, body: .stream(source, length: source.length))
        }
    }
}
