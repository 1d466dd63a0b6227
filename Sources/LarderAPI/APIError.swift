public import CacheCore
public import HTTPCore
import HTTPServer

/// A failed admin request: the status, the stable problem type and what went wrong, rendered as RFC 9457
/// problem+json by `makeResponse()`.
public struct APIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The response status.
    public var status: HTTPStatus
    /// The problem type URI, from `APIProblemType`.
    public var type: String
    /// What went wrong this time, for a human.
    public var detail: String
    /// Fields the answer needs besides the problem's own (`WWW-Authenticate`, `Content-Range`).
    public var headers: HTTPHeaders

    /// Creates an error.
    /// - Parameters:
    ///   - status: the response status.
    ///   - type: the problem type URI.
    ///   - detail: what went wrong.
    ///   - headers: extra response fields.
    public init(status: HTTPStatus, type: String, detail: String, headers: HTTPHeaders = HTTPHeaders()) {
        self.status = status
        self.type = type
        self.detail = detail
        self.headers = headers
    }

    public var description: String { "\(status.code) \(type): \(detail)" }

    /// The problem+json response for this error.
    /// - Returns: a complete response with `Cache-Control: no-store`.
    public func makeResponse() -> HTTPResponse {
        ProblemDetails.make(status: status, type: type, detail: detail).makeResponse(headers: headers)
    }

    /// 400 for a path segment that is not a cache key.
    /// - Parameter text: the segment as received.
    /// - Returns: the error.
    public static func invalidKey(_ text: String) -> APIError {
        APIError(
            status: .badRequest, type: APIProblemType.invalidKey,
            detail: "'\(text.prefix(100))' is not a cache key (64 hex digits).")
    }

    /// 404 for a key with no entry.
    /// - Parameter key: the key.
    /// - Returns: the error.
    public static func notFound(_ key: CacheKey) -> APIError {
        APIError(status: .notFound, type: APIProblemType.notFound, detail: "No cache entry has the key \(key).")
    }

    /// 400 for a query parameter the endpoint cannot use.
    /// - Parameter detail: which parameter and why.
    /// - Returns: the error.
    public static func badQuery(_ detail: String) -> APIError {
        APIError(status: .badRequest, type: APIProblemType.badQuery, detail: detail)
    }

    /// 416 with `Content-Range: bytes */length` (RFC 9110 §15.5.17).
    /// - Parameter length: the complete length of the body.
    /// - Returns: the error.
    public static func rangeNotSatisfiable(length: Int) -> APIError {
        APIError(
            status: .rangeNotSatisfiable, type: APIProblemType.rangeNotSatisfiable,
            detail: "No requested range overlaps the \(length) bytes of the body.",
            headers: HTTPHeaders([("Content-Range", ByteRange.unsatisfiedContentRange(completeLength: length))]))
    }

    /// The answer for a store failure: 404 when the entry is gone (deleted, replaced, or found corrupt
    /// and deleted), 416 for a bad range, 400 for a bad cursor, 503 when the store is full, 500 otherwise.
    /// - Parameter error: what the store threw.
    /// - Returns: the error to answer with.
    public static func storage(_ error: CacheStoreError) -> APIError {
        switch error {
        case .notFound(let key), .corruptEntryDeleted(let key, _):
            return .notFound(key)
        case .invalidRange(_, let length):
            return .rangeNotSatisfiable(length: length)
        case .invalidCursor(let cursor):
            return .badQuery("cursor '\(cursor.prefix(100))' is not one this server produced.")
        case .storageFull:
            return APIError(status: .serviceUnavailable, type: APIProblemType.storageError, detail: "\(error)")
        default:
            return APIError(status: .internalServerError, type: APIProblemType.storageError, detail: "\(error)")
        }
    }
}
