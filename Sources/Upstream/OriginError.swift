/// Why an origin fetch failed, with a stable meaning per case (the API maps each to a status and type).
public enum OriginError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The address connected to is refused by the address policy (403).
    case addressRefused(address: String, reason: AddressRefusal)
    /// The URL is not an absolute http(s) URL Larder accepts (400).
    case invalidURL(reason: String)
    /// A request header cannot be forwarded (CR, LF, NUL or a bad name) (400).
    case invalidRequestHeader(name: String, reason: String)
    /// The origin could not be resolved or reached (502).
    case connectFailed(detail: String)
    /// The connect or total timeout elapsed (504).
    case timeout(detail: String)
    /// The body is larger than the limit, by Content-Length or by counting (502).
    case bodyTooLarge(limit: Int)
    /// The response head is larger than the limit (502).
    case headersTooLarge(limit: Int)
    /// The origin broke the exchange after its head, or sent no valid head: short body, bad framing (502).
    case protocolError(detail: String)
    /// The connection failed or closed before a response head: a failed TLS handshake, a reset, a close
    /// with nothing sent (502). To a caller it is the same failure as ``protocolError(detail:)`` (same
    /// kind and problem type); it is told apart because it is a disconnection (``isDisconnection``).
    case connectionLost(detail: String)
    /// The fetch was cancelled by its owner or by shutdown.
    case cancelled

    /// The HTTP status the API answers with for this error. `.cancelled` maps to 502: it only reaches a
    /// caller when the fetch was cancelled under it (shutdown), which is an upstream failure to that caller.
    public var httpStatus: Int {
        switch self {
        case .invalidURL, .invalidRequestHeader: 400
        case .addressRefused: 403
        case .timeout: 504
        case .connectFailed, .bodyTooLarge, .headersTooLarge, .protocolError, .connectionLost, .cancelled: 502
        }
    }

    /// Whether the cache is disconnected from the origin in the sense of
    /// [RFC 9111 §4.2.4](https://www.rfc-editor.org/rfc/rfc9111#section-4.2.4): the origin could not be
    /// resolved, connected to or shaken hands with, or the connection closed or timed out. A refused
    /// address is not (Larder refused it, the origin is not gone), nor is anything the origin sent.
    /// A timeout after a response head also counts here; the fetch path knows whether a head came.
    public var isDisconnection: Bool {
        switch self {
        case .connectFailed, .timeout, .connectionLost: true
        case .addressRefused, .invalidURL, .invalidRequestHeader, .bodyTooLarge, .headersTooLarge, .protocolError,
            .cancelled:
            false
        }
    }

    /// A stable, short identifier for problem+json `type` URIs and metrics labels.
    public var kind: String {
        switch self {
        case .addressRefused: "address-refused"
        case .invalidURL: "invalid-url"
        case .invalidRequestHeader: "invalid-request-header"
        case .connectFailed: "origin-unreachable"
        case .timeout: "origin-timeout"
        case .bodyTooLarge: "body-too-large"
        case .headersTooLarge: "headers-too-large"
        case .protocolError, .connectionLost: "origin-protocol-error"
        case .cancelled: "cancelled"
        }
    }

    /// One line for logs and problem details.
    public var description: String {
        switch self {
        case .addressRefused(let address, let reason): "address \(address) refused: \(reason)"
        case .invalidURL(let reason): "invalid URL: \(reason)"
        case .invalidRequestHeader(let name, let reason): "request header \(name) refused: \(reason)"
        case .connectFailed(let detail): "could not reach the origin: \(detail)"
        case .timeout(let detail): "origin timed out: \(detail)"
        case .bodyTooLarge(let limit): "origin body exceeds \(limit) bytes"
        case .headersTooLarge(let limit): "origin response head exceeds \(limit) bytes"
        case .protocolError(let detail): "origin protocol error: \(detail)"
        case .connectionLost(let detail): "origin connection lost before a response head: \(detail)"
        case .cancelled: "fetch cancelled"
        }
    }
}
