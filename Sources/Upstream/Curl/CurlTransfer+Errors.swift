import CCurl

extension CurlTransfer {
    /// Maps a libcurl result (https://curl.se/libcurl/c/libcurl-errors.html) to an `OriginError`.
    /// - Parameters:
    ///   - code: libcurl's result for the transfer.
    ///   - detail: libcurl's error buffer text.
    ///   - refusal: the address the socket hook refused, if it refused one.
    /// - Returns: the error with a stable meaning.
    static func mapError(_ code: CURLcode, detail: String, refusal: (address: String, reason: AddressRefusal)?)
        -> OriginError
    {
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
        default:
            return .protocolError(detail: "\(detail) (curl code \(code.rawValue))")
        }
    }
}
