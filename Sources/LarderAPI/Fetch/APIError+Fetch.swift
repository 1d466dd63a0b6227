import HTTPCore
import Upstream

extension APIError {
    /// The answer for an origin fetch that failed with nothing stored to serve instead: 400, 403, 502 or
    /// 504 by `OriginError.httpStatus`, with a stable type per kind.
    /// - Parameter error: how the fetch failed.
    /// - Returns: the error to answer with.
    static func origin(_ error: OriginError) -> APIError {
        let type: ProblemType
        switch error {
        case .addressRefused: type = .addressRefused
        case .invalidURL: type = .invalidURL
        case .invalidRequestHeader: type = .invalidRequestHeader
        case .connectFailed, .cancelled: type = .originUnreachable
        case .timeout: type = .originTimeout
        case .bodyTooLarge: type = .bodyTooLarge
        case .headersTooLarge: type = .headersTooLarge
        case .protocolError, .connectionLost: type = .originProtocolError
        }
        return APIError(status: HTTPStatus(code: error.httpStatus), type: type, detail: error.description)
    }

    /// 400 for a `url` parameter that is missing or unusable.
    /// - Parameter detail: why.
    /// - Returns: the error.
    static func invalidFetchURL(_ detail: String) -> APIError {
        APIError(status: .badRequest, type: .invalidURL, detail: detail)
    }
}
