import CCurl

extension CurlTransfer {
    /// Maps a libcurl result (https://curl.se/libcurl/c/libcurl-errors.html) to an `OriginError`.
    /// - Parameters:
    ///   - code: libcurl's result for the transfer.
    ///   - detail: libcurl's error buffer text.
    ///   - refusal: the address the socket hook refused, if it refused one.
    ///   - headReceived: whether a response head arrived before the failure; a connection that breaks
    ///     before one is lost (a disconnection), after one the origin broke the exchange.
    /// - Returns: the error with a stable meaning.
    static func mapError(
        _ code: CURLcode, detail: String, refusal: (address: String, reason: AddressRefusal)?, headReceived: Bool
    ) -> OriginError {
        switch code {
        case CURLE_COULDNT_CONNECT:
            // The socket hook refusing every address surfaces as "couldn't connect".
            if let refusal { return .addressRefused(address: refusal.address, reason: refusal.reason) }
            return .connectFailed(detail: detail)
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return .connectFailed(detail: detail)
        case CURLE_OPERATION_TIMEDOUT:
            return .timeout(detail: detail)
        case CURLE_URL_MALFORMAT:
            return .invalidURL(reason: detail)
        case CURLE_FILESIZE_EXCEEDED:
            return .protocolError(detail: "libcurl size limit: \(detail)")
        case CURLE_ABORTED_BY_CALLBACK:
            return .cancelled
        case CURLE_OK:
            return .protocolError(detail: "transfer ended without a response head")
        case CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE, CURLE_HTTP2,
            CURLE_HTTP2_STREAM, CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
            CURLE_SSL_CIPHER, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS:
            let text = "\(detail) (curl code \(code.rawValue))"
            return headReceived ? .protocolError(detail: text) : .connectionLost(detail: text)
        default:
            return .protocolError(detail: "\(detail) (curl code \(code.rawValue))")
        }
    }
}
