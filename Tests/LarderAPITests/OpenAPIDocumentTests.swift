import Foundation
import HTTPCore
import HTTPServer
import LarderAPI
import Testing

/// The contract and the code agree: the compiled copy is `openapi.yaml`, and every problem type the
/// code can answer is listed in the document's `ProblemType` enum with a row in its table.
@Suite struct OpenAPIDocumentTests {
    static let documentURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("openapi.yaml")

    /// Every problem type the server's layers define.
    static let problemTypes: [String] =
        APIProblemType.all + FiltersProblemType.all + FetchProblemType.all
        + [
            HTTPProblemType.notFound, HTTPProblemType.methodNotAllowed, HTTPProblemType.requestTimeout,
            HTTPProblemType.overloaded,
        ]
        + [400, 413, 414, 431, 501, 505].map { HTTPProblemType.parseFailure(status: .init(code: $0)) }

    @Test func compiledDocumentEqualsTheFile() throws {
        let file = try String(contentsOf: Self.documentURL, encoding: .utf8)
        #expect(OpenAPIDocument.yaml == file)
    }

    @Test(arguments: problemTypes)
    func problemTypeIsDocumented(type: String) throws {
        let document = OpenAPIDocument.yaml
        #expect(document.contains("        - \(type)\n"), "\(type) is missing from the ProblemType enum")
        let slug = String(type.dropFirst(HTTPProblemType.base.count))
        #expect(document.contains("| `\(slug)` |"), "\(slug) has no row in the problem table")
    }

    @Test func documentIsOpenAPI31WithEveryRoute() {
        let document = OpenAPIDocument.yaml
        #expect(document.hasPrefix("openapi: 3.1.0\n"))
        let routes = [
            "/fetch", "/fetches", "/cache", "/cache/{key}", "/cache/{key}/meta", "/filters", "/filters/explain",
            "/filters/{name}", "/healthz", "/metrics", "/openapi.yaml",
        ]
        for route in routes { #expect(document.contains("\n  \(route):\n"), "\(route) is not a path") }
    }
}
