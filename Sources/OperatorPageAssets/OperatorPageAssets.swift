/// The operator page's files (`GET /ui/`), compiled into the binary by SwiftPM
/// (`resources: [.embedInCode("Resources")]`): plain HTML, CSS and JavaScript, no build step, nothing
/// fetched from elsewhere. A target of their own so that editing the page recompiles these bytes only,
/// not `LarderAPI`'s 54 KB `openapi.yaml` with them.
public enum OperatorPageAssets {
    /// The page (`/ui/`): the four views' skeleton; `operator.js` fills it.
    public static let page: [UInt8] = PackageResources.index_html
    /// The login form, shown at `/ui/` to a browser without a session while a token is configured.
    public static let login: [UInt8] = PackageResources.login_html
    /// The style sheet (`/ui/operator.css`), shared by the page and the login form.
    public static let styleSheet: [UInt8] = PackageResources.operator_css
    /// The script (`/ui/operator.js`): requests, formatting, the overview, in-flight and filters views.
    public static let script: [UInt8] = PackageResources.operator_js
    /// The entries view's script (`/ui/entries.js`, loaded after `operator.js`): listing, meta view, purges.
    public static let entriesScript: [UInt8] = PackageResources.entries_js
    /// The icon (`/ui/icon.svg`), so that a browser asks for no `/favicon.ico` (a 404 in its console).
    public static let icon: [UInt8] = PackageResources.icon_svg
}
