/// Who may use the admin API.
public struct AdminSettings: SettingGroup {
    /// How help and the README title this group.
    public static let title = "Admin"

    @Setting(
        "admin-token", default: "", .optionalText("token"),
        help:
            "Bearer token the admin API (/cache, /filters, /fetches) requires; without one it answers loopback clients only."
    )
    public var token: String?

    /// The defaults outside a resolution; see `SettingGroup.resolve(flags:environment:)`.
    public init() {}
}
