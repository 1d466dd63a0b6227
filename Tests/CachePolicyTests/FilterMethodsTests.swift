import HTTPCore
import Testing

@testable import CachePolicy

/// A filter's `methods` condition: method tokens, case-sensitive, absent for any method.
struct FilterMethodsTests {
    static func url(_ text: String) throws -> CanonicalURL { try URLCanonicalizer().canonicalize(text).get() }

    static func decode(_ json: String) throws(FilterDefinitionError) -> FilterDefinition {
        try FilterDefinition.decode(json: Array(json.utf8))
    }

    @Test func methodsDecodeAsWrittenAndRoundTrip() throws {
        let filter = try Self.decode(#"{"name":"m","match":{"methods":["GET","HEAD","M-SEARCH","GET"]}}"#)
        #expect(filter.match.methods == ["GET", "HEAD", "M-SEARCH"])
        #expect(filter.canonicalJSON.contains(#""methods":["GET","HEAD","M-SEARCH"]"#))
        #expect(try Self.decode(filter.canonicalJSON) == filter)
        #expect(!(try Self.decode(#"{"name":"any"}"#).canonicalJSON.contains("methods")))
    }

    @Test(arguments: [
        (#"["GET", "BAD METHOD"]"#, "match.methods[1]"),
        (#"["GET\r\n"]"#, "match.methods[0]"),
        (#"["G(E)T"]"#, "match.methods[0]"),
        (#"[""]"#, "match.methods[0]"),
        (#"[]"#, "match.methods"),
        (#""GET""#, "match.methods"),
        (#"[1]"#, "match.methods[0]"),
    ])
    func aBadMethodListIsRefusedWithItsPath(list: String, path: String) throws {
        let error = #expect(throws: FilterDefinitionError.self) {
            try Self.decode(#"{"name":"m","match":{"methods":"# + list + "}}")
        }
        #expect(error?.path == path)
    }

    @Test func aTokenLongerThan32BytesIsRefused() throws {
        let long = String(repeating: "M", count: 33)
        let error = #expect(throws: FilterDefinitionError.self) {
            try Self.decode(#"{"name":"m","match":{"methods":[""# + long + #""]}}"#)
        }
        #expect(error?.path == "match.methods[0]")
    }

    @Test func theChainDecidesByMethodCaseSensitively() throws {
        let chain = FilterChain(filters: [
            FilterDefinition(name: "reads", match: .init(methods: ["GET", "HEAD"])),
            FilterDefinition(name: "writes", action: .deny),
        ])
        let url = try Self.url("http://a.example/x")
        #expect(chain.decide(url: url, method: .get, headers: HTTPHeaders()).filterName == "reads")
        #expect(chain.decide(url: url, method: .head, headers: HTTPHeaders()).filterName == "reads")
        #expect(chain.decide(url: url, headers: HTTPHeaders()).filterName == "reads")
        for method in ["POST", "get", "PROPFIND"] {
            let decision = chain.decide(url: url, method: HTTPMethod(rawValue: method), headers: HTTPHeaders())
            #expect(decision.filterName == "writes")
            #expect(decision.action == .deny)
        }
        let explanation = chain.explain(url: url, method: .post, headers: HTTPHeaders())
        #expect(explanation.steps.map(\.verdict) == ["method", "owns"])
        #expect(chain.explain(url: url, headers: HTTPHeaders()).steps.map(\.verdict) == ["owns", "not reached"])
    }

    @Test func theDefaultChainDeniesEveryMethodButGetAndHeadOnImages() throws {
        let chain = FilterChain(filters: FilterChain.defaultFilters)
        let image = try Self.url("https://a.example/cat.png")
        #expect(chain.decide(url: image, method: .get, headers: HTTPHeaders()).filterName == "images")
        #expect(chain.decide(url: image, method: .head, headers: HTTPHeaders()).filterName == "images")
        for method in ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "PURGE"] {
            let decision = chain.decide(url: image, method: HTTPMethod(rawValue: method), headers: HTTPHeaders())
            #expect(decision.filterName == "images-read-only")
            #expect(decision.action == .deny)
        }
        // Anything else is left to the default policy, for every method (RFC 9111 §4.4 applies there).
        let page = try Self.url("https://a.example/page.html")
        #expect(chain.decide(url: page, method: .post, headers: HTTPHeaders()).filterName == nil)
    }

    @Test func aDeciderThatIgnoresMethodsDecidesEveryMethodAsGet() throws {
        let decider: any FilterDecider = DefaultFilterDecider(.defaultBypass)
        let url = try Self.url("http://a.example/x")
        #expect(decider.decide(url: url, method: .post, headers: HTTPHeaders()) == .defaultBypass)
    }
}
