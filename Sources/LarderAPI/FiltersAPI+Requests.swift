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
    static func precondition(of request: HTTPRequest) throws(FiltersFailure) -> (@Sendable (Int) -> Bool)? {
        let lines = request.headers.values(for: "If-Match")
        guard !lines.isEmpty else { return nil }
        guard let condition = EntityTag.Condition(fieldValues: lines) else {
            throw FiltersFailure(
                status: .badRequest, type: FiltersProblemType.invalidPrecondition,
                detail: "If-Match must be * or a list of entity tags such as \"3\".")
        }
        return { version in condition.ifMatchPasses(current: EntityTag(opaqueTag: String(version))) }
    }

    /// The request body as JSON bytes.
    ///
    /// - Parameter request: The request.
    /// - Returns: The body.
    /// - Throws: 415 unless `Content-Type` is `application/json` or a `+json` type; 400 for an empty body.
    static func jsonBody(of request: HTTPRequest) throws(FiltersFailure) -> [UInt8] {
        let mediaType =
            (request.headers["Content-Type"] ?? "")
            .split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first
            .map { Substring($0).trimmingHTTPWhitespace().lowercased() } ?? ""
        guard mediaType == "application/json" || (mediaType.hasPrefix("application/") && mediaType.hasSuffix("+json"))
        else {
            throw FiltersFailure(
                status: .unsupportedMediaType, type: FiltersProblemType.unsupportedMediaType,
                detail: "Filters are sent as application/json, not '\(mediaType.prefix(80))'.",
                headers: HTTPHeaders([("Accept-Post", "application/json")]))
        }
        guard !request.body.isEmpty else {
            throw FiltersFailure(
                status: .badRequest, type: FiltersProblemType.invalidFilter, detail: "$: the body is empty.",
                path: "$")
        }
        return request.body
    }

    /// The answer for anything a `/filters` handler throws.
    ///
    /// - Parameters:
    /// - Parameter error: A `FiltersFailure`, `FilterDefinitionError`, `FilterChainError`, or a store error.
    /// - Returns: The problem+json response; a 412 carries the current `ETag`.
    static func errorResponse(_ error: any Error) -> HTTPResponse {
        switch error {
        case let failure as FiltersFailure:
            return failure.makeResponse()
        case let error as FilterDefinitionError:
            return FiltersFailure(
                status: .badRequest, type: FiltersProblemType.invalidFilter, detail: error.description,
                path: error.path
            ).makeResponse()
        case let error as FilterChainError:
            return failure(for: error).makeResponse()
        default:
            return StorageExecutor.errorResponse(error)
        }
    }

    private static func failure(for error: FilterChainError) -> FiltersFailure {
        switch error {
        case .preconditionFailed(let version):
            FiltersFailure(
                status: .preconditionFailed, type: FiltersProblemType.preconditionFailed,
                detail: "If-Match does not name the current version \(entityTag(version)) of the filter chain.",
                headers: HTTPHeaders([("ETag", entityTag(version))]))
        case .duplicateName:
            FiltersFailure(status: .conflict, type: FiltersProblemType.filterExists, detail: error.description + ".")
        case .notFound, .beforeNotFound:
            FiltersFailure(status: .notFound, type: FiltersProblemType.filterNotFound, detail: error.description + ".")
        case .corruptRecord:
            FiltersFailure(status: .internalServerError, type: APIProblemType.storageError, detail: error.description)
        }
    }

    /// Runs a change on the executor and sends its answer or its error.
    func respondChanging(_ writer: HTTPResponseWriter, _ work: @escaping @Sendable () throws -> HTTPResponse) {
        executor.submit {
            let response: HTTPResponse
            do {
                response = try work()
            } catch {
                response = Self.errorResponse(error)
            }
            writer.send(response)
        }
    }
}
