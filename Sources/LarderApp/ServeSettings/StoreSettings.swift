/// The SQLite cache file and its bound.
public struct StoreSettings: SettingGroup {
    /// How help and the README title this group.
    public static let title = "Store"

    @Setting("db", default: "./larder.db", .text("path"), help: "Path of the SQLite cache file.")
    public var databasePath: String
    @Setting(
        "max-size", default: "1G", .sizeBound,
        help: "Bound on the cache's size in bytes (suffix K, M, G, T for powers of 1024); 0 for none.")
    public var maxSize: Int?

    /// The defaults outside a resolution; see `SettingGroup.resolve(flags:environment:)`.
    public init() {}
}
