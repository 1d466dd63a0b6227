import HTTPCore
import Synchronization
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

    @Test func theMethodLessFormAsksForAGet() throws {
        let decider = MethodRecordingDecider()
        let url = try Self.url("http://a.example/x")
        _ = decider.decide(url: url, headers: HTTPHeaders())
        _ = decider.decide(url: url, method: .post, headers: HTTPHeaders())
        #expect(decider.asked == [.get, .post])
    }
}

/// The shortcut of `FilterChain.decide` for a filter with the conditions of the one before it: it must
/// decide exactly as asking every filter does (`explain` asks every one).
struct FilterChainSharedConditionsTests {
    static let png = "https://a.example/cat.png"

    @Test(arguments: [
        ("GET", png, "reads"), ("POST", png, "writes"), ("GET", "https://a.example/page.html", nil),
        ("POST", "https://a.example/page.html", nil), ("GET", "http://b.example/cat.png", nil),
    ])
    func aChainSplitByMethodDecidesAsExplainDoes(method: String, url: String, owner: String?) throws {
        let match = FilterDefinition.Match(hosts: ["a.example"], extensions: ["png"])
        var reads = FilterDefinition(name: "reads", match: match)
        reads.match.methods = ["GET", "HEAD"]
        let chain = FilterChain(filters: [reads, FilterDefinition(name: "writes", match: match, action: .deny)])
        let canonical = try FilterMethodsTests.url(url)
        let method = HTTPMethod(rawValue: method)
        let decision = chain.decide(url: canonical, method: method, headers: HTTPHeaders())
        #expect(decision.filterName == owner)
        #expect(decision == chain.explain(url: canonical, method: method, headers: HTTPHeaders()).decision)
    }

    @Test func aDisabledFilterDoesNotSpeakForTheNextOne() throws {
        var first = FilterDefinition(name: "off", enabled: false, match: .init(extensions: ["png"]))
        first.match.methods = ["GET"]
        let chain = FilterChain(filters: [first, FilterDefinition(name: "on", match: .init(extensions: ["png"]))])
        #expect(chain.decide(url: try FilterMethodsTests.url(Self.png), headers: HTTPHeaders()).filterName == "on")
    }

    @Test func conditionsThatDifferBeyondMethodsAreEachAsked() throws {
        let chain = FilterChain(filters: [
            FilterDefinition(name: "a", match: .init(hosts: ["a.example"], methods: ["GET"])),
            FilterDefinition(name: "b", match: .init(hosts: ["b.example"])),
        ])
        let url = try FilterMethodsTests.url("https://b.example/x")
        #expect(chain.decide(url: url, method: .get, headers: HTTPHeaders()).filterName == "b")
    }
}

/// A decider that records the method of every decision it is asked for.
final class MethodRecordingDecider: FilterDecider {
    private let methods = Mutex<[HTTPMethod]>([])

    /// The methods asked, in order.
    var asked: [HTTPMethod] { methods.withLock { $0 } }

    func decide(url: CanonicalURL, method: HTTPMethod, headers: HTTPHeaders) -> FilterDecision {
        methods.withLock { $0.append(method) }
        return .defaultBypass
    }
}
