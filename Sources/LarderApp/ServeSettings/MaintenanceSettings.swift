/// The store's background work.
public struct MaintenanceSettings: SettingGroup {
    /// How help and the README title this group.
    public static let title = "Maintenance"

    @Setting(
        "sweep-interval", default: "60", .seconds,
        help: "Seconds between background sweeps of entries expired beyond their stale allowance; 0 turns it off.")
    public var sweepInterval: Double

    /// The defaults outside a resolution; see `SettingGroup.resolve(flags:environment:)`.
    public init() {}
}
