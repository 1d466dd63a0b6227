/// Who may use the admin API.
public struct AdminSettings: SettingGroup {
    /// Every admin route, as help and the start-up line name them (a test holds this to `openapi.yaml`).
    public static let routes = [
        "/cache", "/cache/<key>", "/cache/<key>/meta", "/filters", "/filters/<name>", "/filters/explain",
        "/filters/defaults", "/fetches", "/ui/", "/ui/operator.js", "/ui/operator.css", "/ui/icon.svg",
    ]

    /// How help and the README title this group.
    public static let title = "Admin"

    @Setting(
        "admin-token", default: "", .optionalText("token"),
        help:
            "Bearer token the admin API requires (/cache, /cache/<key>, /cache/<key>/meta, /filters, /filters/<name>, /filters/explain, /filters/defaults, /fetches, and the operator page /ui/, /ui/operator.js, /ui/operator.css, /ui/icon.svg, which also takes it through its login form); without one it answers loopback clients only."
    )
    public var token: String?

    /// The defaults outside a resolution; see `SettingGroup.resolve(flags:environment:)`.
    public init() {}
}
