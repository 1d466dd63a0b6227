public import Logging

/// What `serve` logs and how.
public struct LoggingSettings: SettingGroup {
    /// How log lines are written.
    public enum Format: String, Sendable, CaseIterable {
        /// One human-readable line per event.
        case text
        /// One JSON object per line.
        case json
    }

    /// How help and the README title this group.
    public static let title = "Logging"

    @Setting("log-format", default: "text", .choice("format"), help: "Log format: text or json.")
    public var format: Format
    @Setting(
        "log-level", default: "info", .choice("level"),
        help: "Lowest level logged: trace, debug, info, notice, warning, error, critical.")
    public var level: Logger.Level
    @Setting("access-log", default: "true", .boolean, help: "Log one line per request: true or false.")
    public var accessLog: Bool

    /// The defaults outside a resolution; see `SettingGroup.resolve(flags:environment:)`.
    public init() {}
}
