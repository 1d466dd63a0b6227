import HTTPCore
import HTTPServer

/// `POST /ui/logout`: ends the request's session and clears its cookie (204). It changes state, so it
/// takes the page's `X-Larder-CSRF` header like every other such call from the page (403 without it):
/// another site must not be able to log the operator out.
struct OperatorLogoutHandler: APIHandler {
    let access: AdminAccess

    func handle(_ request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter) throws {
        guard let value = request.headers[AdminAccess.csrfHeader], !value.isEmpty else {
            throw APIError(
                status: .forbidden, type: .missingCSRFHeader,
                detail: "Logging out from a browser takes the \(AdminAccess.csrfHeader) header.")
        }
        if let sessions = access.sessions, let id = AdminSessions.cookieValue(in: request.headers.values(for: "Cookie"))
        {
            sessions.close(id)
        }
        let cookie = "\(AdminSessions.cookieName)=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict"
        writer.send(
            HTTPResponse(
                status: .noContent, headers: HTTPHeaders([("Set-Cookie", cookie), ("Cache-Control", "no-store")])))
    }
}
