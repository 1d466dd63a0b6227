import HTTPCore
import HTTPServer

/// `GET /ui/`: the page to whoever the admin policy allows; the login form to a client without
/// credentials while a token is configured; the policy's refusal otherwise (a client off loopback while
/// no token is configured, a malformed `Authorization`).
struct OperatorPageHandler: HTTPResponder {
    let access: AdminAccess

    func respond(to request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter) {
        switch access.decide(request: request, context: context) {
        case .allow:
            writer.send(OperatorPage.page)
        case .deny(let error) where error.status == .unauthorized && access.requiresToken:
            writer.send(OperatorPage.login)
        case .deny(let error):
            writer.send(error.makeResponse())
        }
    }
}
