import HTTPCore
import HTTPServer
import OperatorPageAssets

/// The operator page: `GET /ui/`, a view of the cache built from the admin API alone
/// (overview from `/metrics`, in-flight fetches from `/fetches`, entries from `/cache`, the chain and
/// its explain from `/filters`), served from files compiled into the binary (`OperatorPageAssets`).
///
/// | route | answer |
/// | --- | --- |
/// | `GET /ui` | 308 to `/ui/` |
/// | `GET /ui/` | the page to an admin client; the login form to a browser without a session while a token is configured |
/// | `GET /ui/operator.js`, `/ui/entries.js`, `/ui/operator.css`, `/ui/icon.svg` | the page's scripts, style sheet and icon |
/// | `POST /ui/login` | the form's token: 303 to `/ui/` with the session cookie, or 401 with the form again |
/// | `POST /ui/logout` | ends the session and clears the cookie (204) |
///
/// The page is its own defence: a strict `Content-Security-Policy` (scripts and styles from the page's
/// own files only, no inline script, images and requests to this origin only), `X-Frame-Options: DENY`,
/// and a script that inserts every value from the cache as text. None of this touches `/fetch`: the
/// routes are separate, and the session check lives in `AdminAccess`, which only admin routes call.
///
/// A namespace of the page's prebuilt responses; the handlers (`OperatorPageHandler`, `OperatorLoginHandler`,
/// …) carry the admin policy.
public enum OperatorPage {
    /// The policy the page's own responses carry (CSP Level 3): everything refused but what the page
    /// needs, all of it from this origin.
    public static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
        + "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

    /// The fields every response of the page carries: its policy, no framing, no sniffing, no referrer.
    /// - Parameters:
    ///   - contentType: the media type.
    ///   - cacheControl: `no-store` for what depends on the session, `no-cache` for the files.
    /// - Returns: the fields.
    static func headers(contentType: String, cacheControl: String = "no-store") -> HTTPHeaders {
        HTTPHeaders([
            ("Content-Type", contentType), ("Cache-Control", cacheControl),
            ("Content-Security-Policy", contentSecurityPolicy), ("X-Frame-Options", "DENY"),
            ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"),
            ("Cross-Origin-Opener-Policy", "same-origin"), ("Cross-Origin-Resource-Policy", "same-origin"),
        ])
    }

    // Built once: the files are constants of the build.
    static let page = HTTPResponse(
        status: .ok, headers: headers(contentType: "text/html; charset=utf-8"), body: .bytes(OperatorPageAssets.page))
    static let login = HTTPResponse(
        status: .ok, headers: headers(contentType: "text/html; charset=utf-8"), body: .bytes(OperatorPageAssets.login))
    static let loginFailed: HTTPResponse = {
        var fields = headers(contentType: "text/html; charset=utf-8")
        fields.add(name: "WWW-Authenticate", value: "Bearer realm=\"\(AdminAccess.realm)\", error=\"invalid_token\"")
        return HTTPResponse(status: .unauthorized, headers: fields, body: .bytes(loginFailedPage))
    }()
    static let script = file(OperatorPageAssets.script, contentType: "text/javascript; charset=utf-8")
    static let entriesScript = file(OperatorPageAssets.entriesScript, contentType: "text/javascript; charset=utf-8")
    static let styleSheet = file(OperatorPageAssets.styleSheet, contentType: "text/css; charset=utf-8")
    static let icon = file(OperatorPageAssets.icon, contentType: "image/svg+xml")

    /// One of the page's files: the same to every client, revalidated (`no-cache`) so a new build is seen.
    private static func file(_ bytes: [UInt8], contentType: String) -> HTTPResponse {
        HTTPResponse(
            status: .ok, headers: headers(contentType: contentType, cacheControl: "no-cache"), body: .bytes(bytes))
    }

    /// The login form with its failure line: the file's `<!--failure-->` marker replaced by a constant
    /// sentence (nothing from the request is ever written into the page).
    static let loginFailedPage: [UInt8] = {
        let marker = Array("<!--failure-->".utf8)
        let line = Array(#"<p class="failure" role="alert">That token does not match. Try again.</p>"#.utf8)
        let bytes = OperatorPageAssets.login
        guard let start = bytes.indices.first(where: { bytes[$0...].starts(with: marker) }) else { return bytes }
        return Array(bytes[..<start]) + line + Array(bytes[(start + marker.count)...])
    }()
}
