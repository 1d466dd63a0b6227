// swift-tools-version: 6.1
// Larder: a caching fetch service. The targets below are the architecture (docs/ARCHITECTURE.md);
// dependencies point down the list, never up.
import PackageDescription

let package = Package(
    name: "Larder",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "larder", targets: ["larder"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        // C libraries. Each is imported by exactly one Swift target.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // SHA-256 for the cache key from the system libcrypto, which libcurl loads anyway (swift-crypto's
        // bundled BoringSSL was most of a clean build and a share of the binary for one digest).
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // Linux interfaces Glibc does not bring: epoll (one set per event loop) and memfd_create.
        .systemLibrary(name: "CLinux"),
        // CRC-32 with carry-less multiplication (PCLMULQDQ), for the Zlib target: zlib's crc32_z costs
        // about 8 instructions a byte, and every stored chunk is checked when it is read.
        .target(name: "CCRC32Fold"),
        // Larder's SQLite VFS: a transaction's WAL frames in one system call, not two a frame, and one
        // memory map of the store that connections share and keep across commits.
        .target(name: "CSQLiteVFS", dependencies: ["CSQLite"]),

        // The Swift face of zlib, its only importer: deflate, inflate, CRC-32. No Swift dependency.
        .target(name: "Zlib", dependencies: ["CZlib", "CCRC32Fold"]),
        .target(name: "HTTPCore"),
        .target(name: "ImageSniffing", dependencies: ["Zlib"]),
        .target(
            name: "CacheCore",
            dependencies: ["HTTPCore", "Zlib", "CCrypto"]
        ),
        .target(name: "CachePolicy", dependencies: ["CacheCore", "ImageSniffing", "HTTPCore"]),
        .target(name: "Storage", dependencies: ["CacheCore", "HTTPCore", "CSQLite", "CSQLiteVFS", "Zlib"]),
        .target(name: "Upstream", dependencies: ["HTTPCore", "CCurl", "CLinux"]),
        .target(name: "HTTPServer", dependencies: ["HTTPCore", "CLinux"]),
        // Counters, histograms and the Prometheus text format; no dependency, so any target may count.
        .target(name: "Metrics"),
        // The operator page's HTML, CSS and JavaScript, compiled in; a target of its own so that an edit of
        // the page does not recompile LarderAPI's embedded openapi.yaml.
        .target(name: "OperatorPageAssets", resources: [.embedInCode("Resources")]),
        .target(
            name: "LarderAPI",
            dependencies: [
                "HTTPCore", "HTTPServer", "CacheCore", "CachePolicy", "ImageSniffing", "Upstream", "Metrics",
                "OperatorPageAssets",
                .product(name: "Logging", package: "swift-log"),
            ],
            // Files the binary serves, compiled in as `PackageResources.<file_name>` byte arrays (a container
            // has no source tree). `Resources/openapi.yaml` is a symlink to the top-level contract.
            resources: [.embedInCode("Resources")]
        ),
        // The application under the executable: every setting of `serve`, declared once and typed, and the
        // wiring that builds the store, the APIs and the router from them; `serve` and the tests both use it.
        .target(
            name: "LarderApp",
            dependencies: [
                "HTTPCore", "HTTPServer", "CacheCore", "CachePolicy", "Storage", "Upstream", "LarderAPI", "Metrics",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "larder",
            dependencies: [
                "HTTPCore", "HTTPServer", "CacheCore", "Storage", "Upstream", "LarderAPI", "LarderApp",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Test doubles and factories shared by the test targets.
        .target(name: "TestSupport", dependencies: ["HTTPCore", "CacheCore", "CLinux"]),
        // The one way tests run Larder's routes, in process (`.router`) or on 127.0.0.1:0 (`.live`).
        .target(
            name: "LarderTesting",
            dependencies: [
                "HTTPCore", "HTTPServer", "LarderAPI", "LarderApp", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]),
        // Storage's crash-test child and benchmark; not part of the product.
        .executableTarget(name: "StorageCrashWriter", dependencies: ["Storage", "CacheCore", "TestSupport"]),
        .executableTarget(
            name: "StorageBenchmark", dependencies: ["Storage", "CacheCore", "TestSupport"],
            path: "Benchmarks/storage", exclude: ["README.md", "run.sh", "lookup-pairs.sh", "blob-read.sh"]),
        // A tag purge among a million entries while hits and stores go on; not part of the product.
        .executableTarget(
            name: "PurgeBenchmark", dependencies: ["Storage", "CacheCore", "TestSupport"], path: "Benchmarks/purge",
            exclude: ["README.md", "run.sh"]),
        // zlib's CRC-32 against the Swift loops it replaced, and PNG validation; not part of the product.
        .executableTarget(
            name: "CRCBenchmark", dependencies: ["ImageSniffing", "Zlib"], path: "Benchmarks/crc",
            exclude: ["README.md", "run.sh", "make-pngs.py"]),
        // The filter chain's per-request decision, timed; not part of the product.
        .executableTarget(
            name: "FilterBenchmark", dependencies: ["CachePolicy", "HTTPCore"], path: "Benchmarks/filters",
            exclude: ["README.md"]),

        .testTarget(name: "ZlibTests", dependencies: ["Zlib", "TestSupport"]),
        .testTarget(name: "HTTPCoreTests", dependencies: ["HTTPCore", "TestSupport"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "HTTPCore", "TestSupport"]),
        .testTarget(name: "ImageSniffingTests", dependencies: ["ImageSniffing", "TestSupport", "Zlib"]),
        .testTarget(name: "CacheCoreTests", dependencies: ["CacheCore", "HTTPCore", "TestSupport"]),
        .testTarget(name: "CachePolicyTests", dependencies: ["CachePolicy", "HTTPCore", "CacheCore"]),
        .testTarget(
            name: "StorageTests", dependencies: ["Storage", "CacheCore", "TestSupport", "CSQLite", "CSQLiteVFS"]),
        .testTarget(name: "UpstreamTests", dependencies: ["Upstream", "HTTPCore", "TestSupport"]),
        .testTarget(
            name: "LarderIntegrationTests", dependencies: ["TestSupport", "HTTPCore", "Storage", "LarderTesting"]),
        .testTarget(name: "MetricsTests", dependencies: ["Metrics"]),
        .testTarget(
            name: "LarderAppTests",
            dependencies: [
                "LarderApp", "Upstream", "CachePolicy", "HTTPServer", "HTTPCore", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "LarderAPITests",
            dependencies: [
                "LarderAPI", "HTTPServer", "HTTPCore", "CacheCore", "Storage", "TestSupport", "CachePolicy", "Upstream",
                "Metrics", "ImageSniffing", "LarderApp", "LarderTesting",
                .product(name: "Logging", package: "swift-log"),
            ]),
    ]
)

// The habits of STYLE.md §1, applied to every target in one place so that C types cannot leak into
// public signatures and every existential is spelled `any`.
let cTargets: Set = ["CCRC32Fold", "CSQLiteVFS"]
for target in package.targets where target.type != .system && !cTargets.contains(target.name) {
    var settings = target.swiftSettings ?? []
    settings.append(contentsOf: [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("InternalImportsByDefault"),
        .enableUpcomingFeature("MemberImportVisibility"),
    ])
    target.swiftSettings = settings
}
