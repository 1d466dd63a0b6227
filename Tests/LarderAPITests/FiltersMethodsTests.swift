import CacheCore
import CachePolicy
import Foundation
import HTTPCore
import TestSupport
import Testing

/// The `methods` condition over REST and on `/fetch`: validation with the field's path, explain's
/// `method` parameter, and a `deny` on methods answered 403 before any origin request.
struct FiltersMethodsTests {
    static let readOnly =
        #"[{"name":"reads","match":{"methods":["GET","HEAD"]}},{"name":"no-writes","action":"deny"}]"#

    @Test func aBadMethodTokenIsA400NamingTheField() async throws {
        try await withFiltersHarness { harness, _ in
            let response = try harness.request(
                "PUT", "/filters", body: #"[{"name":"a"},{"name":"b","match":{"methods":["GET","NOT A TOKEN"]}}]"#)
            #expect(response.status == 400)
            #expect(response.header("Content-Type") == "application/problem+json")
            let json = try FiltersAPIHarness.json(response)
            #expect((json["detail"] as? String)?.contains("filters[1].match.methods[1]") == true)
            #expect(
                try FiltersAPIHarness.names(try harness.request("GET", "/filters")) == ["images", "images-read-only"])
        }
    }

    @Test func explainTakesTheMethodAskedAbout() async throws {
        try await withFiltersHarness { harness, _ in
            #expect(try harness.request("PUT", "/filters", body: Self.readOnly).status == 200)
            let url = ("http://a.example/x").percentEncoded()
            let post = try FiltersAPIHarness.json(try harness.request("GET", "/filters/explain?url=\(url)&method=POST"))
            #expect(post["method"] as? String == "POST")
            #expect(post["owner"] as? String == "no-writes")
            #expect(post["action"] as? String == "deny")
            #expect((post["filters"] as? [[String: String]])?.map { $0["verdict"] ?? "" } == ["method", "owns"])
            let get = try FiltersAPIHarness.json(try harness.request("GET", "/filters/explain?url=\(url)"))
            #expect(get["method"] as? String == "GET")
            #expect(get["owner"] as? String == "reads")
            for bad in ["method=NOT%20A%20TOKEN", "method=", "method=GET&method=POST"] {
                #expect(try harness.request("GET", "/filters/explain?url=\(url)&\(bad)").status == 400)
            }
        }
    }

    @Test func theDefaultChainDeniesAPostToAnImageWithoutAnOriginRequest() async throws {
        try await withInvalidationHarness(decider: FilterChain(filters: FilterChain.defaultFilters)) { harness in
            harness.origin.respond(to: "/cat.png", with: .ok(bytes: ImageSamples.png1x1, contentType: "image/png"))
            for method in ["POST", "PUT", "DELETE", "PROPFIND"] {
                let denied = try harness.send(method, "/cat.png", body: "x")
                #expect(denied.status == 403)
                #expect(denied.header("Content-Type") == "application/problem+json")
                #expect(denied.text.contains("images-read-only"))
            }
            #expect(harness.origin.requestCount == 0)
            #expect(try harness.fetch("/cat.png").status == 200)
            // Other URLs are not images: an unsafe method goes through there.
            harness.origin.respond(to: "/form", with: .status(201))
            #expect(try harness.send("POST", "/form", body: "x").status == 201)
        }
    }
}
