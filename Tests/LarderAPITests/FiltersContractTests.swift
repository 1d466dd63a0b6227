import CachePolicy
import TestSupport
import Testing

/// What the contract run (schemathesis against openapi.yaml) found in `/filters`, fixed and kept fixed.
struct FiltersContractTests {
    /// RFC 9110 §13.2.2: a request that would fail without its preconditions is answered as if it had
    /// none, so a stale `If-Match` cannot hide a 404 or a 409.
    @Test(
        arguments: [
            ("DELETE", "/filters/nope", nil, 404, "filter-not-found"),
            ("POST", "/filters?before=nope", #"{"name":"n"}"#, 404, "filter-not-found"),
            ("POST", "/filters", #"{"name":"images"}"#, 409, "filter-exists"),
            ("DELETE", "/filters/images", nil, 412, "precondition-failed"),
        ] as [(String, String, String?, Int, String)])
    func aRequestThatFailsAnywayIgnoresAStaleIfMatch(
        method: String, path: String, body: String?, status: Int, type: String
    ) async throws {
        try await withFiltersHarness { harness, _ in
            let response = try harness.request(method, path, body: body, headers: [("If-Match", "\"7\"")])
            #expect(response.status == status)
            #expect(response.text.contains("https://larder.dev/problems/\(type)"))
            #expect(harness.registry.chain.version == 1)
        }
    }

    /// `/filters/explain` is a resource of its own that answers GET only; other methods on it are 405
    /// with its `Allow`, not filter operations on a filter named "explain".
    @Test(arguments: ["PUT", "DELETE", "POST"])
    func explainAnswersOtherMethodsWith405(method: String) async throws {
        try await withFiltersHarness { harness, _ in
            let response = try harness.request(method, "/filters/explain", body: "{}")
            #expect(response.status == 405)
            #expect(response.header("Allow") == "GET, HEAD")
            #expect(harness.registry.chain.version == 1)
        }
    }
}
