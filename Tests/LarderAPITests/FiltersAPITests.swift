import CacheCore
import CachePolicy
import Foundation
import HTTPCore
import LarderAPI
import LarderTesting
import Storage
import TestSupport
import Testing

struct FiltersAPITests {
    static let png = try! URLCanonicalizer().canonicalize("https://a.example/x.png").get()
    static let webkit =
        #"{"name":"webkit-images","match":{"schemes":["http","https"],"extensions":["jpg","jpeg","png","gif","tif","bmp","ico"],"headers":{"User-Agent":{"contains":"AppleWebKit"}}},"validate":"image","ttl":604800}"#

    @Test func aNewDatabaseListsTheDefaultChainWithItsETag() async throws {
        try await withFiltersHarness { harness, _ in
            let response = try harness.request("GET", "/filters")
            #expect(response.status == 200)
            #expect(response.header("ETag") == "\"1\"")
            #expect(response.header("Content-Type") == "application/json")
            #expect(try FiltersAPIHarness.json(response)["version"] as? Int == 1)
            #expect(response.text.contains(FilterDefinition.images.canonicalJSON))
            #expect(try harness.request("GET", "/filters", headers: [("If-None-Match", "\"1\"")]).status == 304)
            #expect(try harness.request("GET", "/filters", headers: [("If-None-Match", "\"0\"")]).status == 200)
        }
    }

    @Test func putReplacesTheWholeChainAndTheNextDecisionUsesIt() async throws {
        try await withFiltersHarness { harness, _ in
            let response = try harness.request(
                "PUT", "/filters", body: #"{"filters":[\#(Self.webkit),{"name":"rest","action":"bypass"}]}"#)
            #expect(response.status == 200)
            #expect(response.header("ETag") == "\"2\"")
            #expect(try FiltersAPIHarness.names(response) == ["webkit-images", "rest"])
            #expect(harness.registry.decide(url: Self.png, headers: HTTPHeaders()).filterName == "rest")
            let safari = HTTPHeaders([("User-Agent", "Mozilla/5.0 AppleWebKit/605.1.15")])
            #expect(harness.registry.decide(url: Self.png, headers: safari).filterName == "webkit-images")
            // What GET answers can be PUT back unchanged.
            let listed = try harness.request("GET", "/filters")
            #expect(try harness.request("PUT", "/filters", body: listed.text).status == 200)
            #expect(try FiltersAPIHarness.names(harness.request("GET", "/filters")) == ["webkit-images", "rest"])
        }
    }

    @Test(
        arguments: [
            ("PUT", "/filters", #"{"filters":[{"name":"ok"},{"name":"bad","ttl":"x"}]}"#, "filters[1].ttl"),
            ("PUT", "/filters", #"{"filters":[{"name":"a"},{"name":"a"}]}"#, "filters[1].name"),
            (
                "PUT", "/filters", #"{"filters":[{"name":"a","match":{"headers":{"User-Agent":{"contains":1}}}}]}"#,
                "filters[0].match.headers.User-Agent.contains"
            ),
            ("POST", "/filters", #"{"name":"a","colour":"red"}"#, "colour"),
            ("POST", "/filters", #"{"name":"a","enabled":"yes"}"#, "enabled"),
            ("POST", "/filters", #"{"name":"a""#, "$"),
            ("POST", "/filters", "", "$"),
            ("PUT", "/filters/images", #"{"name":"other"}"#, "name"),
            ("PUT", "/filters/bad%20name", #"{}"#, "name"),
            // PUT /filters/explain is 405 (FiltersContractTests); the reserved name is refused in a body.
            ("POST", "/filters", #"{"name":"explain"}"#, "name"),
        ] as [(String, String, String, String)])
    func badBodiesAre400NamingTheFieldAndChangeNothing(
        _ method: String, _ path: String, _ body: String, _ field: String
    )
        async throws
    {
        try await withFiltersHarness { harness, _ in
            let response = try harness.request(method, path, body: body)
            #expect(response.status == 400)
            #expect(response.header("Content-Type") == "application/problem+json")
            let problem = try FiltersAPIHarness.json(response)
            #expect(problem["path"] as? String == field)
            #expect((problem["type"] as? String)?.hasSuffix("/invalid-filter") == true)
            #expect(harness.registry.chain.version == 1)
            #expect(try harness.store.loadFilterChain().version == 1)
        }
    }

    @Test(
        arguments: [("POST", "text/plain"), ("PUT", "application/x-www-form-urlencoded"), ("PUT", nil)]
            as [(String, String?)])
    func aBodyThatIsNotJSONIs415(_ method: String, _ contentType: String?) async throws {
        try await withFiltersHarness { harness, _ in
            let response = try harness.request(method, "/filters", body: #"{"name":"a"}"#, contentType: contentType)
            #expect(response.status == 415)
            #expect(harness.registry.chain.version == 1)
        }
    }

    @Test func postAppendsInsertsBeforeAndRefusesDuplicatesAndUnknownPlaces() async throws {
        try await withFiltersHarness { harness, _ in
            let appended = try harness.request("POST", "/filters", body: #"{"name":"last"}"#)
            #expect(appended.status == 201)
            #expect(appended.header("Location") == "/filters/last")
            #expect(appended.header("ETag") == "\"2\"")
            #expect(try FiltersAPIHarness.names(appended) == ["images", "images-read-only", "last"])
            let inserted = try harness.request(
                "POST", "/filters?before=images", body: #"{"name":"first","action":"deny"}"#)
            #expect(inserted.status == 201)
            #expect(try FiltersAPIHarness.names(inserted) == ["first", "images", "images-read-only", "last"])
            let duplicate = try harness.request("POST", "/filters", body: #"{"name":"images"}"#)
            #expect(duplicate.status == 409)
            #expect(try FiltersAPIHarness.json(duplicate)["type"] as? String == ProblemType.filterExists.uri)
            #expect(try harness.request("POST", "/filters?before=nope", body: #"{"name":"n"}"#).status == 404)
            #expect(try harness.request("POST", "/filters?after=images", body: #"{"name":"n"}"#).status == 400)
            #expect(harness.registry.chain.version == 3)
        }
    }

    @Test func oneFilterIsReadReplacedCreatedAndDeletedByName() async throws {
        try await withFiltersHarness { harness, _ in
            let read = try harness.request("GET", "/filters/images")
            #expect(read.status == 200)
            #expect(read.text == FilterDefinition.images.canonicalJSON)
            #expect(read.header("ETag") == "\"1\"")
            #expect(try harness.request("GET", "/filters/nope").status == 404)

            let replaced = try harness.request(
                "PUT", "/filters/images", body: #"{"match":{"extensions":["png"]},"ttl":60}"#)
            #expect(replaced.status == 200)
            #expect(replaced.header("ETag") == "\"2\"")
            #expect(try FiltersAPIHarness.json(replaced)["ttl"] as? Int == 60)
            let created = try harness.request("PUT", "/filters/pages", body: #"{"name":"pages","action":"bypass"}"#)
            #expect(created.status == 201)
            #expect(harness.registry.chain.filters.map(\.name) == ["images", "images-read-only", "pages"])

            let deleted = try harness.request("DELETE", "/filters/images")
            #expect(deleted.status == 200)
            #expect(try FiltersAPIHarness.names(deleted) == ["images-read-only", "pages"])
            #expect(deleted.header("ETag") == "\"4\"")
            #expect(try harness.request("DELETE", "/filters/images").status == 404)
            // The default chain's second filter now owns every method on images: it goes too.
            #expect(try harness.request("DELETE", "/filters/images-read-only").status == 200)
            #expect(harness.registry.decide(url: Self.png, headers: HTTPHeaders()).action == .bypass)
        }
    }

    @Test func deleteAllLeavesAnEmptyChainAndTheDefaultPolicy() async throws {
        try await withFiltersHarness { harness, _ in
            let response = try harness.request("DELETE", "/filters")
            #expect(response.status == 200)
            #expect(try FiltersAPIHarness.json(response)["version"] as? Int == 2)
            #expect(try FiltersAPIHarness.names(response).isEmpty)
            #expect(harness.registry.decide(url: Self.png, headers: HTTPHeaders()) == .defaultHTTP)
        }
    }

    @Test func ifMatchGuardsEveryChange() async throws {
        try await withFiltersHarness { harness, _ in
            let stale = try harness.request(
                "POST", "/filters", body: #"{"name":"a"}"#, headers: [("If-Match", "\"0\"")])
            #expect(stale.status == 412)
            #expect(stale.header("ETag") == "\"1\"")
            #expect(try harness.request("DELETE", "/filters", headers: [("If-Match", "\"7\", \"8\"")]).status == 412)
            #expect(
                try harness.request("PUT", "/filters/images", body: "{}", headers: [("If-Match", "W/\"1\"")]).status
                    == 412)
            #expect(try harness.request("DELETE", "/filters", headers: [("If-Match", "1")]).status == 400)
            #expect(harness.registry.chain.version == 1)

            #expect(
                try harness.request("POST", "/filters", body: #"{"name":"a"}"#, headers: [("If-Match", "\"0\", \"1\"")])
                    .status == 201)
            #expect(try harness.request("DELETE", "/filters/a", headers: [("If-Match", "*")]).status == 200)
            #expect(try harness.request("DELETE", "/filters/images", headers: [("If-Match", "\"2\"")]).status == 412)
            #expect(try harness.request("DELETE", "/filters/images", headers: [("If-Match", "\"3\"")]).status == 200)
        }
    }

    @Test func theChainAndItsVersionSurviveARestart() async throws {
        let directory = StorageTestDirectory()
        try await FiltersAPIHarness(path: directory.file()).test(.router) { (first: FiltersAPIHarness) async throws in
            #expect(try first.request("PUT", "/filters", body: "[\(Self.webkit)]").status == 200)
            #expect(try first.request("POST", "/filters", body: #"{"name":"rest","action":"bypass"}"#).status == 201)
        }
        try await FiltersAPIHarness(path: directory.file()).test(.router) { (second: FiltersAPIHarness) async throws in
            let listed = try second.request("GET", "/filters")
            #expect(listed.header("ETag") == "\"3\"")
            #expect(try FiltersAPIHarness.names(listed) == ["webkit-images", "rest"])
            #expect(second.registry.decide(url: Self.png, headers: HTTPHeaders()).filterName == "rest")
        }
    }

    @Test func withATokenTheFiltersNeedIt() async throws {
        try await withFiltersHarness(token: "s3cret") { harness, _ in
            let anonymous = try harness.request("GET", "/filters")
            let deleting = try harness.request("DELETE", "/filters")
            let authorized = try harness.request("GET", "/filters", headers: [("Authorization", "Bearer s3cret")])
            #expect(anonymous.status == 401)
            #expect(deleting.status == 401)
            #expect(harness.registry.chain.version == 1)
            #expect(authorized.status == 200)
        }
    }
}
