import CacheCore
public import HTTPCore
public import HTTPServer

/// `GET|HEAD /cache/<key>`: the stored body with its stored headers, 200 whatever status was stored,
/// streamed from the store (`CacheBodySource`), with `Range` and gzip as `CacheBodyPlan` decides.
///
/// HEAD gets the headers GET would get; a `Range` on HEAD is ignored (RFC 9110 §14.2 defines range
/// handling for GET only). A body found corrupt while streaming is deleted by the store and the
/// connection is aborted mid-body.
///
/// The body is whatever an origin sent, served from Larder's own origin (the operator page shows stored
/// images from here): so every answer replaces the stored `Content-Security-Policy` with
/// `sandbox; default-src 'none'` (a stored HTML or SVG opened here runs no script and loads nothing, in
/// an opaque origin that cannot read the page's), adds `X-Content-Type-Options: nosniff` (a body is never
/// read as another type than the one stored) and `Cross-Origin-Resource-Policy: same-origin` (no other
/// site embeds it). `/fetch` is not changed: it answers as the origin did.
public struct CacheBodyHandler: APIHandler {
    /// The fields that make a stored body inert when served from Larder's origin.
    public static let inertHeaders: [(name: String, value: String)] = [
        ("Content-Security-Policy", "sandbox; default-src 'none'"), ("X-Content-Type-Options", "nosniff"),
        ("Cross-Origin-Resource-Policy", "same-origin"),
    ]

    private let api: CacheAPI

    /// Creates the handler.
    /// - Parameter api: the store and executor.
    public init(api: CacheAPI) { self.api = api }

    /// Answers one body request.
    public func handle(_ request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter) throws {
        var headers = request.headers
        if request.method != .get { headers.remove(name: "Range") }
        let requestHeaders = headers
        let isHead = request.method == .head
        try api.respond(forKeyIn: context, writer: writer) { api, key in
            try Self.makeResponse(api: api, key: key, requestHeaders: requestHeaders, prefetch: !isHead)
        }
    }

    /// Looks the entry up, plans the answer and opens the body; runs on the storage executor.
    private static func makeResponse(
        api: CacheAPI, key: CacheKey, requestHeaders: HTTPHeaders, prefetch: Bool
    ) throws -> HTTPResponse {
        let entry = try api.entry(for: key)
        switch CacheBodyPlan(entry: entry, requestHeaders: requestHeaders).outcome {
        case .unsatisfiable(let error):
            throw error
        case .send(let status, let form, var headers):
            for field in inertHeaders { headers.replaceOrAdd(name: field.name, value: field.value) }
            headers.remove(name: "Content-Security-Policy-Report-Only")
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
