public import CachePolicy
public import Upstream

/// The origin client and `/fetch`: which addresses it may reach, its limits, the hot tier, what
/// happens to requests no filter owns, and whom it trusts for https.
public struct FetchSettings: SettingGroup {
    /// How help and the README title this group.
    public static let title = "Origin client and /fetch"

    @Setting(
        "allow-network", default: "", .cidrList, repeatable: true, deprecatedEnvironment: ["LARDER_ALLOW_NETWORKS"],
        help: "CIDR the origin client may connect to although it is not public (repeatable; env: comma-separated).")
    public var allowNetworks: [CIDR]
    @Setting("connect-timeout", default: "10", .positiveSeconds, help: "Seconds to connect to an origin (TCP and TLS).")
    public var connectTimeout: Double
    @Setting(
        "origin-timeout", default: "60", .positiveSeconds,
        help: "Seconds for a whole origin fetch, first to last byte (504 when no head came).")
    public var originTimeout: Double
    @Setting(
        "max-object-bytes", default: "256M", .positiveSize,
        help: "Largest origin body fetched (suffix K, M, G); larger ones are cut off and never stored (502).")
    public var maxObjectBytes: Int
    @Setting(
        "hot-bytes", default: "64M", .size,
        help: "Memory for hits answered without SQLite (bodies and prepared heads; suffix K, M, G; 0 turns it off).")
    public var hotBytes: Int
    @Setting("hot-max-entry", default: "4M", .size, help: "Largest body kept in that memory (suffix K, M, G).")
    public var hotMaxEntry: Int
    @Setting(
        "in-flight-bytes", default: "64M", .positiveSize,
        help:
            "Memory for bodies being fetched, all fetches together (suffix K, M, G); past a fetch's share the origin "
            + "is paused until its callers and the store catch up.")
    public var inFlightBytes: Int
    @Setting(
        "via-name", default: "larder", .token,
        help: "Larder's pseudonym in Via; a request already carrying it is refused as a loop (508).")
    public var viaName: String
    @Setting(
        "max-image-pixels", default: "67108864", .integer(in: 1...Int.max),
        help:
            "Largest width × height an image filter stores (decompression bombs); larger images are relayed, not stored."
    )
    public var maxImagePixels: Int
    @Setting(
        "stale-if-disconnected", default: "1d", .duration,
        help:
            "How stale a stored response may be served when the origin cannot be reached (DNS, connect, TLS, "
            + "timeout or close before a head; RFC 9111 4.2.4); suffix s, m, h, d; 0 turns it off.")
    public var staleIfDisconnected: Int64
    @Setting(
        "default-policy", default: "http", .choice("policy"),
        help: "What happens to requests no filter owns: http (RFC 9111 shared-cache rules) or bypass (never stored).")
    public var defaultPolicy: FilterDefaultPolicy
    @Setting(
        "forward-tag-headers", default: "false", .boolean,
        help:
            "Pass the origin's Surrogate-Key and Cache-Tag fields on to callers; by default they only tag the "
            + "stored entry (DELETE /cache?tag=) and are dropped.")
    public var forwardTagHeaders: Bool
    @Setting(
        "origin-ca-file", default: "", .optionalText("path"),
        help: "PEM file of CA certificates trusted for https origins in addition to the system store (private CAs).")
    public var originCAFile: String?
    @Setting(
        "origin-ca-only", default: "false", .boolean,
        help: "Trust only --origin-ca-file for https origins, not the system store.")
    public var originCAOnly: Bool
    @Setting(
        "origin-client-cert", default: "", .optionalText("path"),
        help: "PEM client certificate shown to https origins that ask for one (mutual TLS).")
    public var originClientCertificate: String?
    @Setting(
        "origin-client-key", default: "", .optionalText("path"),
        help: "PEM private key of --origin-client-cert (default: read from the certificate's file).")
    public var originClientKey: String?

    /// The origin client's trust and client certificate; `OriginTLS.validate()` checks the files.
    public var originTLS: OriginTLS {
        OriginTLS(
            caFile: originCAFile, trustsOnlyCAFile: originCAOnly, clientCertificateFile: originClientCertificate,
            clientKeyFile: originClientKey)
    }

    /// The defaults outside a resolution; see `SettingGroup.resolve(flags:environment:)`.
    public init() {}
}
