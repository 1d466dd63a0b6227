import HTTPCore
import HTTPServer

/// `GET /ui`: 308 to `/ui/`, so that the page's relative links resolve under `/ui/`.
struct OperatorRedirect: HTTPResponder {
    private static let response = HTTPResponse(
        status: .permanentRedirect, headers: HTTPHeaders([("Location", "/ui/"), ("Cache-Control", "no-cache")]))

    func respond(to request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter) {
        writer.send(Self.response)
    }
}
