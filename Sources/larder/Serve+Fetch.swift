import ArgumentParser
import CacheCore
import CachePolicy
import Foundation
import HTTPServer
import LarderAPI
import Logging
import Metrics
import Upstream

extension Setting {
    static let allowNetwork = Setting(
        flag: "allow-network", environment: "LARDER_ALLOW_NETWORKS", defaultValue: "",
        summary: "CIDR the origin client may connect to although it is not public (repeatable; env: comma-separated).")
    static let connectTimeout = Setting(
        flag: "connect-timeout", environment: "LARDER_CONNECT_TIMEOUT", defaultValue: "10",
        summary: "Seconds to connect to an origin (TCP and TLS).")
    static let originTimeout = Setting(
        flag: "origin-timeout", environment: "LARDER_ORIGIN_TIMEOUT", defaultValue: "60",
        summary: "Seconds for a whole origin fetch, first to last byte (504 when no head came).")
    static let maxObjectBytes = Setting(
        flag: "max-object-bytes", environment: "LARDER_MAX_OBJECT_BYTES", defaultValue: "256M",
        summary: "Largest origin body fetched (suffix K, M, G); larger ones are cut off and never stored (502).")
    static let hotBytes = Setting(
        flag: "hot-bytes", environment: "LARDER_HOT_BYTES", defaultValue: "64M",
        summary: "Memory for hits answered without SQLite (bodies and prepared heads; suffix K, M, G; 0 turns it off).")
    static let hotMaxEntry = Setting(
        flag: "hot-max-entry", environment: "LARDER_HOT_MAX_ENTRY", defaultValue: "4M",
        summary: "Largest body kept in that memory (suffix K, M, G).")
    static let viaName = Setting(
        flag: "via-name", environment: "LARDER_VIA_NAME", defaultValue: "larder",
        summary: "Larder's pseudonym in Via; a request already carrying it is refused as a loop (508).")
    static let maxImagePixels = Setting(
        flag: "max-image-pixels", environment: "LARDER_MAX_IMAGE_PIXELS", defaultValue: "67108864",
        summary:
            "Largest width × height an image filter stores (decompression bombs); larger images are relayed, not stored."
    )
}

/// The origin-client and `/fetch` settings, resolved and checked.
struct FetchSettings: Sendable {
    var allowNetworks: [CIDR]
    var connectTimeout: Double
    var originTimeout: Double
    var maxObjectBytes: Int
    var hotBytes: Int
    var hotMaxEntry: Int
    var viaName: String
    var maxImagePixels: Int

    /// Resolves the settings: flag over environment over default.
    /// - Throws: `ValidationError` naming the flag or variable and the bad value.
    init(resolver: Settings.Resolver) throws {
        let raw = resolver.raw
        let (networks, networksOrigin) = raw(.allowNetwork)
        allowNetworks = try networks.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.map { text in
                guard let cidr = CIDR(text) else {
                    throw ValidationError("\(networksOrigin): '\(text)' is not a CIDR (e.g. 10.0.0.0/8, fd00::/8)")
                }
                return cidr
            }
        connectTimeout = try resolver.positiveSeconds(.connectTimeout)
        originTimeout = try resolver.positiveSeconds(.originTimeout)
        let (sizeText, sizeOrigin) = raw(.maxObjectBytes)
        guard let size = try Settings.parseSize(sizeText, origin: sizeOrigin) else {
            throw ValidationError("\(sizeOrigin): the object size bound cannot be 0")
        }
        maxObjectBytes = size
        hotBytes = try Settings.parseSize(raw(.hotBytes).text, origin: raw(.hotBytes).origin) ?? 0
        hotMaxEntry = try Settings.parseSize(raw(.hotMaxEntry).text, origin: raw(.hotMaxEntry).origin) ?? 0
        let (via, viaOrigin) = raw(.viaName)
        guard !via.isEmpty, via.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._".contains($0)) }) else {
            throw ValidationError("\(viaOrigin): '\(via)' is not a token (letters, digits, '-', '.', '_')")
        }
        viaName = via
        maxImagePixels = try resolver.integer(.maxImagePixels, in: 1...Int.max)
    }

    /// The origin client's configuration.
    /// - Parameter ownEndpoints: Larder's listening addresses, refused even inside an allowed network.
    func clientConfiguration(ownEndpoints: [IPEndpoint] = []) -> OriginClient.Configuration {
        OriginClient.Configuration(
            limits: OriginLimits(
                connectTimeout: .milliseconds(Int64(connectTimeout * 1000)),
                totalTimeout: .milliseconds(Int64(originTimeout * 1000)), maxBodyBytes: maxObjectBytes),
            addressPolicy: AddressPolicy(allowNetworks: allowNetworks), ownEndpoints: ownEndpoints, viaName: viaName)
    }

    /// The addresses a server configured with `host` and `port` answers on, for the loop guard: the host
    /// itself, or loopback for a wildcard host (other interfaces of a wildcard listener are not listed).
    /// Empty for port 0, whose number is only known after listening.
    static func ownEndpoints(host: String, port: Int) -> [IPEndpoint] {
        guard let port = UInt16(exactly: port), port != 0 else { return [] }
        let hosts = host == "0.0.0.0" || host == "::" ? ["127.0.0.1", "::1"] : [host]
        return hosts.compactMap { IPAddress($0).map { IPEndpoint(address: $0, port: port) } }
    }
}

extension LarderWiring {
    /// Mounts `GET|HEAD /fetch` and the admin route `GET /fetches` on an origin client built from the settings.
    /// - Parameters:
    ///   - router: the router.
    ///   - store: the cache store.
    ///   - executor: the queues store calls run on (shared with `/cache`).
    ///   - settings: the resolved fetch settings.
    ///   - adminToken: the admin token, if any.
    ///   - decider: the filter chain (it holds the default policy for requests no filter owns).
    ///   - listening: the server's configured host and port (Larder never fetches from itself).
    ///   - metrics: where the fetch path's metrics are registered, if anywhere.
    ///   - logger: the process logger.
    /// - Returns: the service; its `store` is the one every other API must change entries through (it keeps
    ///   memory consistent).
    @discardableResult
    static func mountFetch(
        on router: inout Router, store: any CacheStore, executor: StorageExecutor, settings: FetchSettings,
        adminToken: String?,
        decider: any FilterDecider, listening: (host: String, port: Int) = ("", 0), metrics: MetricsRegistry? = nil,
        logger: Logger
    ) -> FetchService {
        let own = FetchSettings.ownEndpoints(host: listening.host, port: listening.port)
        let client = OriginClient(configuration: settings.clientConfiguration(ownEndpoints: own))
        let service = FetchService(
            store: store, executor: executor, client: client,
            decider: decider,
            configuration: FetchConfiguration(
                viaName: settings.viaName, maxObjectBytes: settings.maxObjectBytes,
                maxImagePixels: settings.maxImagePixels, hotBudgetBytes: settings.hotBytes,
                hotMaxEntryBytes: settings.hotMaxEntry),
            onStoreFailure: { url, error in
                // Served uncached: the caller is fine, the operator must hear that the disk is not.
                logger.error(
                    "store failed; response served uncached", metadata: ["url": "\(url)", "error": "\(error)"])
            })
        service.mount(on: &router, access: AdminAccess(token: adminToken))
        metrics?.register(service.metrics)
        // Debug, like the store's line: the first info line stays "listening on …", which scripts wait for.
        logger.debug(
            "fetch ready",
            metadata: [
                "allowNetworks": "\(settings.allowNetworks.map(\.description).joined(separator: ","))",
                "maxObjectBytes": "\(settings.maxObjectBytes)", "via": "\(settings.viaName)",
                "maxImagePixels": "\(settings.maxImagePixels)",
                "hotBytes": "\(settings.hotBytes)", "hotMaxEntry": "\(settings.hotMaxEntry)",
            ])
        return service
    }
}
