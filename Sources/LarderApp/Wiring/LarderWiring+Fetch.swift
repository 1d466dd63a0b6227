import CacheCore
import CachePolicy
import HTTPServer
import LarderAPI
import Logging
import Metrics
import Upstream

extension FetchSettings {
    /// The origin client's configuration.
    /// - Parameter ownEndpoints: Larder's listening addresses, refused even inside an allowed network.
    func clientConfiguration(ownEndpoints: [IPEndpoint] = []) -> OriginClient.Configuration {
        OriginClient.Configuration(
            limits: OriginLimits(
                connectTimeout: .milliseconds(Int64(connectTimeout * 1000)),
                totalTimeout: .milliseconds(Int64(originTimeout * 1000)), maxBodyBytes: maxObjectBytes),
            addressPolicy: AddressPolicy(allowNetworks: allowNetworks), ownEndpoints: ownEndpoints, viaName: viaName,
            tls: originTLS)
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
    /// The service behind `GET|HEAD /fetch` and `GET /fetches`, on an origin client built from the settings.
    /// - Parameters:
    ///   - store: the cache store.
    ///   - executor: the queues store calls run on (shared with `/cache`).
    ///   - settings: the resolved fetch settings.
    ///   - decider: the filter chain (it holds the default policy for requests no filter owns).
    ///   - listening: the server's configured host and port (Larder never fetches from itself).
    ///   - metrics: where the fetch path's metrics are registered, if anywhere.
    ///   - logger: the process logger.
    /// - Returns: the service; its `store` is the one every other API must change entries through (it keeps
    ///   memory consistent).
    static func makeFetchService(
        store: any CacheStore, executor: StorageExecutor, settings: FetchSettings, decider: any FilterDecider,
        listening: (host: String, port: Int) = ("", 0), metrics: MetricsRegistry? = nil,
        logger: Logger
    ) -> FetchService {
        let own = FetchSettings.ownEndpoints(host: listening.host, port: listening.port)
        let client = OriginClient(configuration: settings.clientConfiguration(ownEndpoints: own))
        var configuration = FetchConfiguration(
            viaName: settings.viaName, maxObjectBytes: settings.maxObjectBytes,
            maxImagePixels: settings.maxImagePixels, hotBudgetBytes: settings.hotBytes,
            hotMaxEntryBytes: settings.hotMaxEntry, staleIfDisconnected: settings.staleIfDisconnected,
            inFlightBytes: settings.inFlightBytes)
        configuration.forwardTagHeaders = settings.forwardTagHeaders
        configuration.targetedCacheControl = settings.targetedCacheControl
        let service = FetchService(
            store: store, executor: executor, client: client,
            decider: decider,
            configuration: configuration,
            onStoreFailure: { url, error in
                // Served uncached: the caller is fine, the operator must hear that the disk is not.
                logger.error(
                    "store failed; response served uncached", metadata: ["url": "\(url)", "error": "\(error)"])
            })
        metrics?.register(service.metrics)
        // Debug, like the store's line: the first info line stays "listening on …", which scripts wait for.
        logger.debug(
            "fetch ready",
            metadata: [
                "allowNetworks": "\(settings.allowNetworks.map(\.description).joined(separator: ","))",
                "maxObjectBytes": "\(settings.maxObjectBytes)", "via": "\(settings.viaName)",
                "maxImagePixels": "\(settings.maxImagePixels)",
                "hotBytes": "\(settings.hotBytes)", "hotMaxEntry": "\(settings.hotMaxEntry)",
                "inFlightBytes": "\(settings.inFlightBytes)",
                "originCAFile": "\(settings.originCAFile ?? "none")", "originCAOnly": "\(settings.originCAOnly)",
                "originClientCert": "\(settings.originClientCertificate ?? "none")",
                "staleIfDisconnected": "\(settings.staleIfDisconnected)",
                "targetedCacheControl": "\(settings.targetedCacheControl.fieldNames.joined(separator: ","))",
            ])
        return service
    }
}
