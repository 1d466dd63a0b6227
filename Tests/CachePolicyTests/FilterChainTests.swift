import CachePolicy
import HTTPCore
import Testing

struct FilterChainTests {
    static func url(_ text: String) throws -> CanonicalURL { try URLCanonicalizer().canonicalize(text).get() }

    static func filter(_ json: String) throws -> FilterDefinition {
        try FilterDefinition.decode(json: Array(json.utf8))
    }

    static let webkit = """
        { "name": "webkit-images",
          "match": { "schemes": ["http", "https"],
                     "extensions": ["jpg", "jpeg", "png", "gif", "tif", "bmp", "ico"],
                     "headers": { "User-Agent": { "contains": "AppleWebKit" } } },
          "action": "cache", "validate": "image" }
        """
    static let safari =
        "Mozilla/5.0 (iPhone) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1"

    @Test(
        arguments: [
            ("http://a.example/p/cat.jpg", safari, "owns"),
            ("https://a.example/p/cat.JPG", safari, "owns"),
            ("https://a.example/p/cat.Png?size=2", safari, "owns"),
            ("https://a.example/favicon.ico", safari, "owns"),
            ("https://a.example/p/cat.tif", safari, "owns"),
            ("https://a.example/p/cat.webp", safari, "extension"),
            ("https://a.example/p/cat.jpg/", safari, "extension"),
            ("https://a.example/p.jpg/cat", safari, "extension"),
            ("https://a.example/p/jpg", safari, "extension"),
            ("https://a.example/p/cat.jpg", "curl/8.5.0", "header User-Agent"),
            ("https://a.example/p/cat.jpg", "", "header User-Agent"),
            ("https://a.example/p/cat.jpg", "applewebkit lower", "header User-Agent"),
        ] as [(String, String, String)])
    func theOriginalWebviewImageFilterIsOneFilter(_ target: String, _ agent: String, _ verdict: String) throws {
        let chain = FilterChain(filters: [try Self.filter(Self.webkit)], version: 1)
        let headers = HTTPHeaders(agent.isEmpty ? [] : [("User-Agent", agent)])
        let explanation = chain.explain(url: try Self.url(target), headers: headers)
        #expect(explanation.steps.map(\.verdict) == [verdict])
        let decision = chain.decide(url: try Self.url(target), headers: headers)
        #expect(decision.filterName == (verdict == "owns" ? "webkit-images" : nil))
        #expect(decision == explanation.decision)
        if verdict == "owns" { #expect(decision.validateImage) }
    }

    @Test(
        arguments: [
            (#"{"name":"f","match":{"schemes":["https"]}}"#, "http://a.example/x", [String](), "scheme"),
            (#"{"name":"f","match":{"schemes":["https"]}}"#, "https://a.example/x", [], "owns"),
            (#"{"name":"f","match":{"hosts":["*.example.com"]}}"#, "https://img.EXAMPLE.com/x", [], "owns"),
            (#"{"name":"f","match":{"hosts":["*.example.com"]}}"#, "https://example.com/x", [], "host"),
            (
                #"{"name":"f","match":{"hosts":["cdn?.example.com","a.example"]}}"#, "https://cdn7.example.com/x", [],
                "owns"
            ),
            (#"{"name":"f","match":{"hosts":["cdn?.example.com"]}}"#, "https://cdn77.example.com/x", [], "host"),
            (#"{"name":"f","match":{"hosts":["A.Example"]}}"#, "https://a.example/x", [], "owns"),
            (#"{"name":"f","match":{"hosts":["a.example"]}}"#, "https://b.a.example/x", [], "host"),
            (#"{"name":"f","match":{"hosts":["*"]}}"#, "https://anything.example/x", [], "owns"),
            (#"{"name":"f","match":{"hosts":["img*.example.*"]}}"#, "https://img2.example.org/x", [], "owns"),
            (#"{"name":"f","match":{"hosts":["img*.example.*"]}}"#, "https://cdn.example.org/x", [], "host"),
            (#"{"name":"f","match":{"extensions":["JPEG"]}}"#, "https://a.example/x.jPeG", [], "owns"),
            (#"{"name":"f","match":{"pathPrefix":"/img/"}}"#, "https://a.example/img/x", [], "owns"),
            (#"{"name":"f","match":{"pathPrefix":"/img/"}}"#, "https://a.example/IMG/x", [], "pathPrefix"),
            (#"{"name":"f","match":{"pathPrefix":"/img/"}}"#, "https://a.example/a/../img/x", [], "owns"),
            (
                #"{"name":"f","match":{"headers":{"accept":{"prefix":"image/"}}}}"#, "https://a.example/",
                ["Accept: image/avif"], "owns"
            ),
            (
                #"{"name":"f","match":{"headers":{"Accept":{"prefix":"image/"}}}}"#, "https://a.example/",
                ["Accept: text/html"], "header Accept"
            ),
            (
                #"{"name":"f","match":{"headers":{"X-Mode":{"equals":"img"}}}}"#, "https://a.example/", ["X-Mode: img"],
                "owns"
            ),
            (
                #"{"name":"f","match":{"headers":{"X-Mode":{"equals":"img"}}}}"#, "https://a.example/",
                ["X-Mode: imgs"], "header X-Mode"
            ),
            (
                #"{"name":"f","match":{"headers":{"X-Mode":{"equals":"img"}}}}"#, "https://a.example/",
                ["X-Mode: a", "X-Mode: img"], "owns"
            ),
            (
                #"{"name":"f","match":{"headers":{"X-Mode":{"contains":"m"}}}}"#, "https://a.example/", [],
                "header X-Mode"
            ),
            (#"{"name":"f","enabled":false}"#, "https://a.example/", [], "disabled"),
            (#"{"name":"f"}"#, "https://a.example/", [], "owns"),
            (#"{"name":"f","match":{"schemes":["http"],"hosts":["b.example"]}}"#, "https://b.example/", [], "scheme"),
        ] as [(String, String, [String], String)])
    func eachConditionKindHoldsOrNamesItselfAsTheFailure(
        _ json: String, _ target: String, _ headerLines: [String], _ verdict: String
    ) throws {
        let headers = HTTPHeaders(
            headerLines.map { line in
                let parts = line.split(separator: ":", maxSplits: 1)
                return (String(parts[0]), String(parts[1].dropFirst()))
            })
        let chain = FilterChain(filters: [try Self.filter(json)])
        #expect(chain.explain(url: try Self.url(target), headers: headers).steps.map(\.verdict) == [verdict])
        #expect((chain.decide(url: try Self.url(target), headers: headers).filterName != nil) == (verdict == "owns"))
    }

    @Test func theFirstOwningFilterWinsAndLaterOnesAreNotReached() throws {
        let chain = FilterChain(filters: [
            try Self.filter(#"{"name":"off","enabled":false}"#),
            try Self.filter(#"{"name":"deny-evil","match":{"hosts":["evil.example"]},"action":"deny"}"#),
            try Self.filter(#"{"name":"pngs","match":{"extensions":["png"]},"ttl":60}"#),
            try Self.filter(#"{"name":"all","action":"bypass"}"#),
        ])
        let explanation = chain.explain(url: try Self.url("https://a.example/x.png"), headers: HTTPHeaders())
        #expect(explanation.steps.map(\.verdict) == ["disabled", "host", "owns", "not reached"])
        #expect(explanation.owner == "pngs")
        #expect(explanation.decision.overrides.ttl == 60)
        #expect(chain.decide(url: try Self.url("https://evil.example/x.png"), headers: HTTPHeaders()).action == .deny)
        #expect(chain.decide(url: try Self.url("https://a.example/x.gif"), headers: HTTPHeaders()).filterName == "all")
    }

    @Test(arguments: [(FilterDefaultPolicy.http, FilterDecision.defaultHTTP), (.bypass, .defaultBypass)])
    func whenNoFilterOwnsTheRequestTheDefaultPolicyDecides(_ policy: FilterDefaultPolicy, _ expected: FilterDecision)
        throws
    {
        let chain = FilterChain(filters: [.images], version: 3, defaultPolicy: policy)
        let url = try Self.url("https://a.example/page.html")
        #expect(chain.decide(url: url, headers: HTTPHeaders()) == expected)
        let explanation = chain.explain(url: url, headers: HTTPHeaders())
        #expect(explanation.owner == nil)
        #expect(explanation.decision == expected)
        #expect(explanation.steps.map(\.verdict) == ["extension"])
        #expect(FilterChain(filters: [], defaultPolicy: policy).decide(url: url, headers: HTTPHeaders()) == expected)
    }

    @Test(arguments: ["jpg", "jpeg", "png", "gif", "tif", "tiff", "bmp", "ico", "webp", "avif"])
    func theDefaultImagesFilterOwnsEachImageExtension(_ ext: String) throws {
        let chain = FilterChain(filters: FilterChain.defaultFilters)
        let decision = chain.decide(url: try Self.url("http://a.example/i." + ext.uppercased()), headers: HTTPHeaders())
        #expect(decision.filterName == "images")
        #expect(decision.validateImage)
        #expect(decision.contentTypes == ["image/*"])
        #expect(
            chain.decide(url: try Self.url("http://a.example/i.\(ext).txt"), headers: HTTPHeaders()).filterName == nil)
    }

    @Test func theFreshnessRuleSaysWhatApplies() throws {
        let ttl = try Self.filter(#"{"name":"f","ttl":604800,"minTtl":60,"maxTtl":700000}"#).decision
        #expect(
            FilterChain.freshnessRule(of: ttl).hasPrefix(
                "ttl 604800 s overrides the origin's freshness, clamped to 60...700000 s"))
        #expect(FilterChain.freshnessRule(of: .defaultHTTP).hasPrefix("origin headers"))
        #expect(FilterChain.freshnessRule(of: .defaultHTTP).hasSuffix("origin no-store wins"))
        #expect(FilterChain.freshnessRule(of: .defaultBypass) == "not stored (bypass)")
    }
}
