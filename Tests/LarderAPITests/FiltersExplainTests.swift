import CacheCore
import CachePolicy
import Foundation
import TestSupport
import Testing

struct FiltersExplainTests {
    static let webkit =
        #"{"name":"webkit-images","match":{"schemes":["http","https"],"extensions":["jpg","png"],"headers":{"User-Agent":{"contains":"AppleWebKit"}}},"validate":"image","ttl":604800,"dropParams":["utm_*"]}"#

    private static func explain(_ harness: FiltersAPIHarness, _ url: String, headers: [(String, String)] = [])
        throws -> (status: Int, json: [String: Any])
    {
        let encoded = url.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? url
        let response = try harness.request("GET", "/filters/explain?url=" + encoded, headers: headers)
        return (response.status, try FiltersAPIHarness.json(response))
    }

    @Test func aMatchingURLNamesTheOwnerTheKeyAndTheRules() async throws {
        try await withFiltersHarness { harness, _ in
            _ = try harness.request(
                "PUT", "/filters", body: #"[{"name":"off","enabled":false},\#(Self.webkit),{"name":"rest"}]"#)
            let (status, json) = try Self.explain(
                harness, "HTTPS://A.example:443/p/../cat.PNG?utm_source=x&id=3#frag",
                headers: [("User-Agent", "Mozilla/5.0 AppleWebKit/605.1.15")])
            #expect(status == 200)
            #expect(json["canonicalURL"] as? String == "https://a.example/cat.PNG?id=3")
            #expect(json["key"] as? String == CacheKey.make(canonicalURL: "https://a.example/cat.PNG?id=3").hex)
            #expect(json["owner"] as? String == "webkit-images")
            #expect(json["action"] as? String == "cache")
            #expect(json["defaultPolicy"] == nil)
            let verdicts = (json["filters"] as? [[String: String]])?.map { $0["verdict"] ?? "" }
            #expect(verdicts == ["disabled", "owns", "not reached"])
            #expect((json["freshness"] as? String)?.hasPrefix("ttl 604800 s overrides") == true)
            #expect((json["store"] as? [String: Any])?["validateImage"] as? Bool == true)
            let overrides = json["overrides"] as? [String: Any]
            #expect(overrides?["ttl"] as? Int == 604_800)
            #expect(overrides?["maxTtl"] is NSNull)
            let addresses = json["addresses"] as? [[String: String]]
            #expect(addresses?.first?["address"] == "93.184.216.34")
            #expect(addresses?.first?["verdict"]?.hasPrefix("allowed") == true)
        }
    }

    @Test func aURLNoFilterOwnsShowsEachFailedConditionAndTheDefaultPolicy() async throws {
        try await withFiltersHarness { harness, _ in
            _ = try harness.request("PUT", "/filters", body: "[\(Self.webkit)]")
            let (status, json) = try Self.explain(
                harness, "http://127.0.0.1:8080/cat.png", headers: [("User-Agent", "curl/8")])
            #expect(status == 200)
            #expect(json["owner"] is NSNull)
            #expect(json["defaultPolicy"] as? String == "http")
            #expect((json["filters"] as? [[String: String]])?.first?["verdict"] == "header User-Agent")
            #expect(json["canonicalURL"] as? String == "http://127.0.0.1:8080/cat.png")
            let addresses = json["addresses"] as? [[String: String]]
            #expect(addresses?.first?["verdict"]?.hasPrefix("refused") == true)

            let page = try Self.explain(harness, "https://a.example/index.html").json
            #expect((page["filters"] as? [[String: String]])?.first?["verdict"] == "extension")
        }
    }

    @Test(arguments: [
        "", "?url=", "?url=ftp%3A%2F%2Fa.example%2F", "?url=not-a-url", "?url=https%3A%2F%2Fa.example%2F&x=1",
    ])
    func aBadURLIs400(_ query: String) async throws {
        try await withFiltersHarness { harness, _ in
            let response = try harness.request("GET", "/filters/explain" + query)
            #expect(response.status == 400)
            #expect(response.header("Content-Type") == "application/problem+json")
        }
    }

    @Test func headerParametersReplaceTheCallersOwnHeaders() async throws {
        try await withFiltersHarness { harness, _ in
            _ = try harness.request("PUT", "/filters", body: "[\(Self.webkit)]")
            let url = "https%3A%2F%2Fa.example%2Fcat.png"
            // The caller is curl; the parameter says to assume Safari: the WebKit filter owns it.
            let assumed = try harness.request(
                "GET", "/filters/explain?url=\(url)&header=User-Agent%3A%20Mozilla%2F5.0%20AppleWebKit%2F605",
                headers: [("User-Agent", "curl/8")])
            #expect(assumed.status == 200)
            #expect(try FiltersAPIHarness.json(assumed)["owner"] as? String == "webkit-images")
            // The other way round: the caller is WebKit, the parameter assumes curl; the caller's own
            // User-Agent no longer counts, and nor does any other header of the caller.
            let replaced = try harness.request(
                "GET", "/filters/explain?url=\(url)&header=User-Agent:curl/8&header=Accept:image/png",
                headers: [("User-Agent", "Mozilla/5.0 AppleWebKit/605")])
            let json = try FiltersAPIHarness.json(replaced)
            #expect(json["owner"] is NSNull)
            #expect((json["filters"] as? [[String: String]])?.first?["verdict"] == "header User-Agent")
        }
    }

    @Test(arguments: [
        "header=User-Agent", "header=%3Avalue", "header=Bad%20Name%3A%20x", "header=X%3A%20a%01b",
        "header=User-Agent%3Ax&url=https%3A%2F%2Fa.example%2F",
    ])
    func aMalformedHeaderParameterIs400(_ parameter: String) async throws {
        try await withFiltersHarness { harness, _ in
            let response = try harness.request("GET", "/filters/explain?url=https%3A%2F%2Fa.example%2F&" + parameter)
            #expect(response.status == 400)
            #expect(response.text.contains("bad-query"))
        }
    }
}
