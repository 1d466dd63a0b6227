/// Why a `ReplicaClient` exchange failed; the description is one line for an operator.
public enum ReplicaClientError: Error, CustomStringConvertible {
    /// What kind of failure, for the wording.
    public enum Kind: Sendable {
        /// Not resolved, refused or unreachable.
        case connect
        /// The deadline passed.
        case timeout
        /// Something answered, but not with an HTTP response Larder's client takes.
        case malformed
        /// The TLS handshake or the peer's certificate failed.
        case tls
        /// Anything else libcurl reports.
        case other
    }

    /// The URL cannot be asked for.
    case badURL(String, reason: String)
    /// The exchange failed.
    case failed(url: String, kind: Kind, detail: String)

    public var description: String {
        switch self {
        case .badURL(let url, let reason): "bad URL '\(url)': \(reason)"
        case .failed(let url, let kind, let detail):
            switch kind {
            case .connect: "cannot connect to \(url): \(detail)"
            case .timeout: "timed out asking \(url): \(detail)"
            case .malformed: "malformed response from \(url): \(detail)"
            case .tls: "TLS failed with \(url): \(detail)"
            case .other: "request to \(url) failed: \(detail)"
            }
        }
    }
}
