public import CacheCore
public import CachePolicy
public import HTTPCore
import HTTPServer

/// A failed API request: the status, the kind of problem and what went wrong, rendered as RFC 9457
/// problem+json by `makeResponse()`. Handlers throw it (`APIHandler`) and the one place that catches it
/// renders it; the server adds `instance`, the request's id, on the way out.
public struct APIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The response status.
    public var status: HTTPStatus
    /// The kind of problem; its URI is the body's `type`.
    public var type: ProblemType
    /// What went wrong this time, for a human.
    public var detail: String
    /// Fields the answer needs besides the problem's own (`WWW-Authenticate`, `Content-Range`, `ETag`).
    public var headers: HTTPHeaders
    /// The offending field of an invalid filter (`match.hosts[0]`), rendered as the problem's `path` member.
    public var path: String?

    /// Creates an error.
    /// - Parameters:
    ///   - status: the response status.
    ///   - type: the kind of problem.
    ///   - detail: what went wrong.
    ///   - headers: extra response fields.
    ///   - path: the offending field of an invalid filter, if any.
    public init(
        status: HTTPStatus, type: ProblemType, detail: String, headers: HTTPHeaders = HTTPHeaders(),
        path: String? = nil
    ) {
        self.status = status
        self.type = type
        self.detail = detail
        self.headers = headers
        self.path = path
    }

    /// The error to answer with for anything a handler or its store work threw: an `APIError` as it is,
    /// a store error by `storage(_:)`, a filter's or the chain's by their kind, anything else a 500
    /// `storage-error` (what is left to throw below the handlers is the store).
    /// - Parameter error: what was thrown.
    public init(_ error: any Error) {
        switch error {
        case let error as APIError: self = error
        case let error as CacheStoreError: self = .storage(error)
        case let error as FilterDefinitionError:
            self.init(status: .badRequest, type: .invalidFilter, detail: error.description, path: error.path)
        case let error as FilterChainError: self = .filterChain(error)
        default: self.init(status: .internalServerError, type: .storageError, detail: "\(error)")
        }
    }

    public var description: String { "\(status.code) \(type.rawValue): \(detail)" }

    /// The problem+json response for this error.
    /// - Returns: a complete response with `Cache-Control: no-store`.
    public func makeResponse() -> HTTPResponse {
        var problem = ProblemDetails.make(status: status, type: type.uri, detail: detail)
        if let path { problem.extensions = [("path", path)] }
        return problem.makeResponse(headers: headers)
    }

    /// 400 for a path segment that is not a cache key.
    /// - Parameter text: the segment as received.
    /// - Returns: the error.
    public static func invalidKey(_ text: String) -> APIError {
        APIError(
            status: .badRequest, type: .invalidKey,
            detail: "'\(text.prefix(100))' is not a cache key (64 hex digits).")
    }

    /// 404 for a key with no entry.
    /// - Parameter key: the key.
    /// - Returns: the error.
    public static func notFound(_ key: CacheKey) -> APIError {
        APIError(status: .notFound, type: .notFound, detail: "No cache entry has the key \(key).")
    }

    /// 400 for a query parameter the endpoint cannot use.
    /// - Parameter detail: which parameter and why.
    /// - Returns: the error.
    public static func badQuery(_ detail: String) -> APIError {
        APIError(status: .badRequest, type: .badQuery, detail: detail)
    }

    /// 416 with `Content-Range: bytes */length` (RFC 9110 §15.5.17).
    /// - Parameter length: the complete length of the body.
    /// - Returns: the error.
    public static func rangeNotSatisfiable(length: Int) -> APIError {
        APIError(
            status: .rangeNotSatisfiable, type: .rangeNotSatisfiable,
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
            return APIError(status: .serviceUnavailable, type: .storageError, detail: "\(error)")
        default:
            return APIError(status: .internalServerError, type: .storageError, detail: "\(error)")
        }
    }

    /// The answer for a refused change of the filter chain: 412 with the current `ETag`, 409 for a
    /// duplicate name, 404 for a name the chain does not hold, 500 for a stored chain that no longer decodes.
    /// - Parameter error: what the registry threw.
    /// - Returns: the error to answer with.
    public static func filterChain(_ error: FilterChainError) -> APIError {
        switch error {
        case .preconditionFailed(let version):
            APIError(
                status: .preconditionFailed, type: .preconditionFailed,
                detail:
                    "If-Match does not name the current version \(FiltersAPI.entityTag(version)) of the filter chain.",
                headers: HTTPHeaders([("ETag", FiltersAPI.entityTag(version))]))
        case .duplicateName:
            APIError(status: .conflict, type: .filterExists, detail: error.description + ".")
        case .notFound, .beforeNotFound:
            APIError(status: .notFound, type: .filterNotFound, detail: error.description + ".")
        case .corruptRecord:
            APIError(status: .internalServerError, type: .storageError, detail: error.description)
        }
    }
}
