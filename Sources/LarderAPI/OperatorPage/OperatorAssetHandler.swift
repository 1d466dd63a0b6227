import HTTPCore
import HTTPServer

/// The page's script, style sheet and icon: to admin clients, and to anyone while a token is configured (the
/// login form uses the style sheet and the icon; the files are the same in every build and hold no data).
struct OperatorAssetHandler: HTTPResponder {
    let access: AdminAccess
    let response: HTTPResponse

    func respond(to request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter) {
        if access.requiresToken {
            return writer.send(response)
        }
        switch access.decide(request: request, context: context) {
        case .allow: writer.send(response)
        case .deny(let error): writer.send(error.makeResponse())
        }
    }
}
