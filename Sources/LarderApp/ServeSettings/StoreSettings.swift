public import Storage

/// The SQLite cache file, its bound, when it is synced and how hard its bodies are compressed.
public struct StoreSettings: SettingGroup {
    /// How help and the README title this group.
    public static let title = "Store"

    @Setting("db", default: "./larder.db", .text("path"), help: "Path of the SQLite cache file.")
    public var databasePath: String
    @Setting(
        "max-size", default: "1G", .sizeBound,
        help: "Bound on the cache's size in bytes (suffix K, M, G, T for powers of 1024); 0 for none.")
    public var maxSize: Int?
    @Setting(
        "store-sync", default: "off", .choice("when"),
        help:
            "When the cache file is synced to disk: off (never while serving; after a crash of the machine the file is checked at start and, if damaged, moved aside for an empty store) or checkpoint (at every checkpoint; a crash of the machine loses the last seconds)."
    )
    public var sync: StoreSync
    @Setting(
        "store-map", default: "64G", .size,
        help:
            "Bytes of the cache file read through one shared memory map instead of pread (address space, not memory: the kernel's page cache holds the pages either way); 0 for none. An I/O error on a mapped page, or another process shrinking the file, stops the process (SIGBUS) where pread would fail one read."
    )
    public var mapBytes: Int
    @Setting(
        "store-deflate-level", default: "6", .integer(in: 1...9),
        help:
            "zlib level at which a body worth compressing is stored (bodies that already have a Content-Encoding, compressed media types and identity callers' variants are stored as they came): 1 is fastest, 9 smallest. Deflating a 16 KiB text takes about 1.4 million instructions at 1 and 3.3 million at 6, for 12 % more bytes at 1."
    )
    public var deflateLevel: Int

    /// The defaults outside a resolution; see `SettingGroup.resolve(flags:environment:)`.
    public init() {}
}
