import HTTPCore
import HTTPServer

/// `POST /ui/login`: the login form's `token` (`application/x-www-form-urlencoded`, the HTML form's
/// own encoding, so the form needs no script). The right token opens a session (`AdminSessions`) and
/// answers 303 to `/ui/` with its cookie; a wrong or missing one answers 401 with the form and a
/// failure line. Without a configured token there is nothing to log in to: 303 to `/ui/`, which answers
/// loopback clients.
///
/// The cookie (RFC 6265 §4.1) is `HttpOnly` (no script reads it), `SameSite=Strict` (no other site's
/// page makes the browser send it) and `Path=/` (the admin routes live at the top: `/cache`,
/// `/filters`, `/fetches`). It is not `Secure`: Larder speaks plain HTTP, and a cookie marked `Secure`
/// would never come back over it; off loopback, put TLS in front or reach the port through an SSH
/// tunnel (README).
struct OperatorLoginHandler: APIHandler {
    let access: AdminAccess

    func handle(_ request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter) throws {
        let mediaType = request.headers["Content-Type"]?.split(separator: ";").first?.trimmingHTTPWhitespace()
        guard let mediaType, mediaType.equalsIgnoringASCIICase("application/x-www-form-urlencoded") else {
            throw APIError(
                status: .unsupportedMediaType, type: .unsupportedMediaType,
                detail: "The login form is application/x-www-form-urlencoded with a 'token' field.")
        }
        // No token in force (none configured, or a reload removed them all): loopback needs no login.
        guard let sessions = access.sessions, access.requiresToken else {
            return writer.send(Self.redirect(cookie: nil))
        }
        // The session keeps the token's name and scope: a read token's login cannot purge.
        guard let presented = Self.formField("token", in: request.body),
            let (_, id) = access.openSession(presenting: presented.utf8)
        else {
            return writer.send(OperatorPage.loginFailed)
        }
        writer.send(
            Self.redirect(
                cookie: "\(AdminSessions.cookieName)=\(id); Path=/; Max-Age=\(Int(sessions.lifetime)); "
                    + "HttpOnly; SameSite=Strict"))
    }

    /// 303 to the page, setting `cookie` when given.
    static func redirect(cookie: String?) -> HTTPResponse {
        var headers = HTTPHeaders([("Location", "/ui/"), ("Cache-Control", "no-store")])
        if let cookie { headers.add(name: "Set-Cookie", value: cookie) }
        return HTTPResponse(status: HTTPStatus(code: 303), headers: headers)
    }

    /// The first value of a field of a form-encoded body (`+` is a space, `%XX` a byte), or `nil`.
    static func formField(_ name: String, in body: [UInt8]) -> String? {
        for pair in body.split(separator: UInt8(ascii: "&")) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let rawName = String(validating: parts[0], as: UTF8.self), rawName.formDecoded() == name else {
                continue
            }
            let rawValue = parts.count > 1 ? parts[1] : []
            guard let text = String(validating: rawValue, as: UTF8.self) else { return nil }
            return text.percentDecoded(plusIsSpace: true)
        }
        return nil
    }
}
