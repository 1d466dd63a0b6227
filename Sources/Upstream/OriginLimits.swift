/// Bounds on one origin fetch; the client has defaults and a request may override them.
public struct OriginLimits: Hashable, Sendable {
    /// Longest time to establish the connection (TCP and TLS).
    public var connectTimeout: Duration
    /// Longest time for the whole fetch, from start to last byte (paused time counts).
    public var totalTimeout: Duration
    /// Largest body accepted: checked against `Content-Length` up front and by counting while streaming.
    public var maxBodyBytes: Int
    /// Largest response head accepted, status line and all field lines (1xx heads included).
    public var maxHeaderBytes: Int

    /// Creates limits.
    /// - Parameters:
    ///   - connectTimeout: connect bound, default 10 s.
    ///   - totalTimeout: whole-fetch bound, default 60 s.
    ///   - maxBodyBytes: body bound, default 256 MiB.
    ///   - maxHeaderBytes: head bound, default 64 KiB.
    public init(
        connectTimeout: Duration = .seconds(10), totalTimeout: Duration = .seconds(60),
        maxBodyBytes: Int = 256 << 20, maxHeaderBytes: Int = 64 << 10
    ) {
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
        self.maxBodyBytes = maxBodyBytes
        self.maxHeaderBytes = maxHeaderBytes
    }
}

extension Duration {
    /// Whole milliseconds, at least 1 (libcurl reads 0 as "no timeout").
    var curlMilliseconds: Int {
        let (seconds, attoseconds) = components
        return max(1, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }
}
