import Foundation
import HTTPCore
import HTTPServer
import LarderAPI
import Testing

/// The contract and the code agree: the document the binary serves is `openapi.yaml`, and every
/// problem type the code can answer is listed in the document's `ProblemType` enum with a row in its
/// table.
@Suite struct OpenAPIResponderTests {
    /// `openapi.yaml` at the package's top, found from this source file's path.
    static let documentURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("openapi.yaml")

    /// Every problem type the server's layers define: the API's (`ProblemType`, whose raw values the compiler
    /// keeps distinct) and the server's own.
    static let problemTypes: [String] =
        ProblemType.allCases.map(\.uri)
        + [
            HTTPProblemType.notFound, HTTPProblemType.methodNotAllowed, HTTPProblemType.requestTimeout,
            HTTPProblemType.overloaded,
        ]
        + [400, 413, 414, 431, 501, 505].map { HTTPProblemType.parseFailure(status: .init(code: $0)) }

    /// The served document as text; YAML is UTF-8 here, so bytes that are not fail the test.
    static func servedText() throws -> String {
        try #require(String(validating: OpenAPIResponder.document, as: UTF8.self), "openapi.yaml is not UTF-8")
    }

    @Test func embeddedDocumentIsTheFileByteForByte() throws {
        let file = try [UInt8](Data(contentsOf: Self.documentURL))
        #expect(OpenAPIResponder.document.count == file.count)
        #expect(OpenAPIResponder.document == file)
    }

    @Test(arguments: problemTypes)
    func problemTypeIsDocumented(type: String) throws {
        let document = try Self.servedText()
        #expect(document.contains("        - \(type)\n"), "\(type) is missing from the ProblemType enum")
        let slug = String(type.dropFirst(HTTPProblemType.base.count))
        #expect(document.contains("| `\(slug)` |"), "\(slug) has no row in the problem table")
    }

    @Test func documentIsOpenAPI31WithEveryRoute() throws {
        let document = try Self.servedText()
        #expect(document.hasPrefix("openapi: 3.1.0\n"))
        let routes = [
            "/fetch", "/fetches", "/cache", "/cache/{key}", "/cache/{key}/meta", "/filters", "/filters/explain",
            "/filters/{name}", "/livez", "/healthz", "/readyz", "/metrics", "/openapi.yaml", "/ui", "/ui/",
            "/ui/operator.js", "/ui/entries.js", "/ui/operator.css", "/ui/icon.svg", "/ui/login", "/ui/logout",
        ]
        for route in routes { #expect(document.contains("\n  \(route):\n"), "\(route) is not a path") }
    }
}
