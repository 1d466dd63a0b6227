extension OriginClient {
    /// How an origin client behaves; set once at creation.
    public struct Configuration: Sendable {
        /// Default limits of every fetch (a request may override them).
        public var limits: OriginLimits
        /// Transfers running at once; more wait in a FIFO queue.
        public var maxConcurrentTransfers: Int
        /// Connections open at once to one host (CURLMOPT_MAX_HOST_CONNECTIONS).
        public var maxConnectionsPerHost: Int
        /// Idle connections kept for reuse (CURLMOPT_MAXCONNECTS).
        public var connectionCacheSize: Int
        /// Which addresses may be connected to.
        public var addressPolicy: AddressPolicy
        /// Larder's own listeners: refused even inside an allow-network (loop guard).
        public var ownEndpoints: [IPEndpoint]
        /// Larder's pseudonym in `Via` (RFC 9110 §7.6.3).
        public var viaName: String
        /// The longest URL accepted.
        public var maxURLLength: Int
        /// The CAs trusted for https origins and the client certificate shown to them.
        public var tls: OriginTLS

        /// Creates a configuration.
        /// - Parameters:
        ///   - limits: default per-fetch limits.
        ///   - maxConcurrentTransfers: transfers at once, default 64.
        ///   - maxConnectionsPerHost: connections per host, default 16.
        ///   - connectionCacheSize: idle connections kept, default 64.
        ///   - addressPolicy: the SSRF policy, default refusing every special-purpose range.
        ///   - ownEndpoints: Larder's listening addresses.
        ///   - viaName: pseudonym in `Via`, default `larder`.
        ///   - maxURLLength: longest URL, default 8 KiB.
        ///   - tls: trust and client certificate, default the system's store and no certificate.
        public init(
            limits: OriginLimits = OriginLimits(), maxConcurrentTransfers: Int = 64, maxConnectionsPerHost: Int = 16,
            connectionCacheSize: Int = 64, addressPolicy: AddressPolicy = AddressPolicy(),
            ownEndpoints: [IPEndpoint] = [], viaName: String = "larder",
            maxURLLength: Int = OriginURL.defaultMaximumLength, tls: OriginTLS = OriginTLS()
        ) {
            self.limits = limits
            self.maxConcurrentTransfers = max(1, maxConcurrentTransfers)
            self.maxConnectionsPerHost = max(1, maxConnectionsPerHost)
            self.connectionCacheSize = max(1, connectionCacheSize)
            self.addressPolicy = addressPolicy
            self.ownEndpoints = ownEndpoints
            self.viaName = viaName
            self.maxURLLength = maxURLLength
            self.tls = tls
        }
    }
}
