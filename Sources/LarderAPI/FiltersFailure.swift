import HTTPCore
import HTTPServer

/// A refused `/filters` request: status, problem type, detail, and for invalid filters the path of
/// the offending field, rendered as RFC 9457 problem+json with a `path` extension member.
struct FiltersFailure: Error, Sendable {
    var status: HTTPStatus
    var type: String
    var detail: String
    var headers = HTTPHeaders()
    var path: String?

    init(status: HTTPStatus, type: String, detail: String, headers: HTTPHeaders = HTTPHeaders(), path: String? = nil) {
        self.status = status
        self.type = type
        self.detail = detail
        self.headers = headers
        self.path = path
    }

    func makeResponse() -> HTTPResponse {
        var problem = ProblemDetails.make(status: status, type: type, detail: detail)
        if let path { problem.extensions = [("path", path)] }
        return problem.makeResponse(headers: headers)
    }
}
