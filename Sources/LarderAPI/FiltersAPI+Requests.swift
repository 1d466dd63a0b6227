import CacheCore
import CachePolicy
import HTTPCore
import HTTPServer

extension FiltersAPI {
    /// The `If-Match` check of a change (RFC 9110 §13.1.1), or `nil` when the request has none.
    ///
    /// - Parameter request: The request.
    /// - Returns: A check of the chain's version against the listed tags (`*` passes).
    /// - Throws: A 400 `invalid-precondition` error for a malformed field: guessing what a broken
    ///   precondition meant could overwrite someone else's change.
    static func precondition(of request: HTTPRequest) throws(APIError) -> (@Sendable (Int) -> Bool)? {
        let lines = request.headers.values(for: "If-Match")
        guard !lines.isEmpty else { return nil }
        guard let condition = EntityTag.Condition(fieldValues: lines) else {
            throw APIError(
                status: .badRequest, type: .invalidPrecondition,
                detail: "If-Match must be * or a list of entity tags such as \"3\".")
        }
        return { version in condition.ifMatchPasses(current: EntityTag(opaqueTag: String(version))) }
    }

    /// The request body as JSON bytes.
    ///
    /// - Parameter request: The request.
    /// - Returns: The body.
    /// - Throws: 415 unless `Content-Type` is `application/json` or a `+json` type; 400 for an empty body.
    static func jsonBody(of request: HTTPRequest) throws(APIError) -> [UInt8] {
        let mediaType =
            (request.headers["Content-Type"] ?? "")
            .split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first
            .map { Substring($0).trimmingHTTPWhitespace().lowercased() } ?? ""
        guard mediaType == "application/json" || (mediaType.hasPrefix("application/") && mediaType.hasSuffix("+json"))
        else {
            throw APIError(
                status: .unsupportedMediaType, type: .unsupportedMediaType,
                detail: "Filters are sent as application/json, not '\(mediaType.prefix(80))'.",
                headers: HTTPHeaders([("Accept-Post", "application/json")]))
        }
        guard !request.body.isEmpty else {
            throw APIError(
                status: .badRequest, type: .invalidFilter, detail: "$: the body is empty.",
                path: "$")
        }
        return request.body
    }
}
