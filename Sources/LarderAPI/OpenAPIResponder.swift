public import HTTPCore
public import HTTPServer

/// `GET|HEAD /openapi.yaml`: the API contract, byte for byte as `openapi.yaml` (OpenAPI 3.1,
/// https://spec.openapis.org/oas/v3.1.0), from the copy compiled into the binary.
public struct OpenAPIResponder: HTTPResponder {
    /// The media type of YAML (RFC 9512).
    public static let mediaType = "application/yaml"

    /// The document as served: the top-level `openapi.yaml`, embedded by SwiftPM at build time.
    public static let document: [UInt8] = PackageResources.openapi_yaml

    // Built once: the document is a constant of the build.
    private static let response = HTTPResponse(
        status: .ok,
        headers: HTTPHeaders([("Content-Type", mediaType), ("Cache-Control", "no-cache")]),
        body: .bytes(document))

    /// Creates the responder.
    public init() {}

    /// Sends the document.
    /// - Parameters:
    ///   - request: the request (its query is ignored).
    ///   - context: the request's context.
    ///   - writer: where the response goes.
    public func respond(to request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter) {
        writer.send(Self.response)
    }
}
