import CCurl

/// A blocking, one-request HTTP client on libcurl's easy interface for the operator commands
/// (`larder health`, `larder fanout`), which talk to Larder's own replicas: http and https, IPv4 and
/// IPv6, names resolved by libcurl, one deadline on the whole exchange
/// (https://curl.se/libcurl/c/curl_easy_perform.html).
///
/// Unlike `OriginClient` it applies no address policy: replicas live on loopback and private networks,
/// exactly the addresses the fetch path refuses. It follows no redirect, uses no proxy (environment
/// included), verifies TLS peers and host names, and reads at most `maxResponseBytes` of body.
public struct ReplicaClient: Sendable {
    /// The whole exchange (connect, TLS, send, receive) must end within this.
    public var timeout: Duration
    /// The most body bytes read; an operator tool has no use for more.
    public var maxResponseBytes: Int
    /// Trust for https replicas (a private CA) and a client certificate, if any.
    public var tls: OriginTLS

    /// Creates a client.
    /// - Parameters:
    ///   - timeout: the deadline of each exchange, default 3 s.
    ///   - maxResponseBytes: the body bound, default 1 MiB.
    ///   - tls: trust and client certificate, default the system's store.
    public init(timeout: Duration = .seconds(3), maxResponseBytes: Int = 1 << 20, tls: OriginTLS = OriginTLS()) {
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
        self.tls = tls
    }

    /// The URL of `path` on the replica at `base`, whose own path and query are dropped.
    /// - Parameters:
    ///   - base: `http(s)://host[:port][/…]`; IPv6 hosts in brackets.
    ///   - path: the path and query to ask for, starting with `/`.
    /// - Returns: the URL and its `host:port` (the scheme's port when none is given), for messages.
    /// - Throws: `ReplicaClientError.badURL`.
    public static func target(base: String, path: String) throws(ReplicaClientError) -> (
        url: String, authority: String
    ) {
        let parsed: OriginURL
        do {
            parsed = try OriginURL(validating: base)
        } catch {
            throw .badURL(base, reason: "\(error)")
        }
        let host = parsed.host.contains(":") ? "[\(parsed.host)]" : parsed.host
        let authority = "\(host):\(parsed.effectivePort)"
        return ("\(parsed.scheme)://\(authority)\(path)", authority)
    }

    /// Sends one request and reads the whole response.
    /// - Parameters:
    ///   - method: `GET`, `DELETE`, … (`HEAD` reads no body).
    ///   - url: an absolute http(s) URL (see `target(base:path:)`).
    ///   - headers: header fields to send (`User-Agent: larder-cli` unless given).
    ///   - body: a request body, sent with its `Content-Length`; POST, PUT and PATCH send one even empty.
    /// - Returns: the final response.
    /// - Throws: `ReplicaClientError` naming what failed.
    public func send(
        _ method: String, url: String, headers: [(name: String, value: String)] = [], body: [UInt8] = []
    ) throws(ReplicaClientError) -> ReplicaResponse {
        guard let easy = CurlEasy() else { throw .failed(url: url, kind: .other, detail: "curl_easy_init failed") }
        let exchange = ReplicaExchange(maxBodyBytes: maxResponseBytes)
        // `Name;` sends an empty value: `Name:` would tell libcurl to remove the field.
        var lines = headers.map { $0.value.isEmpty ? "\($0.name);" : "\($0.name): \($0.value)" }
        let given = Set(headers.map { $0.name.lowercased() })
        if !given.contains("user-agent") { lines.append("User-Agent: larder-cli") }
        // "Name:" removes what libcurl would add: a form Content-Type on a body, Expect: 100-continue.
        if !given.contains("content-type") { lines.append("Content-Type:") }
        if !given.contains("expect") { lines.append("Expect:") }
        let list = CurlHeaderList(lines: lines)
        exchange.configure(easy, method: method, url: url, headers: list, body: body, timeout: timeout)
        easy.applyTLS(tls)
        if let failure = easy.setupFailure { throw .failed(url: url, kind: .other, detail: failure) }
        let code = withExtendedLifetime(list) { curl_easy_perform(easy.handle) }
        return try exchange.outcome(code, easy: easy, url: url)
    }
}
