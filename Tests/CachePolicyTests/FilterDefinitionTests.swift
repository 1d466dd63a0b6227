import Testing

@testable import CachePolicy

struct FilterDefinitionTests {
    private static func decode(_ json: String) throws(FilterDefinitionError) -> FilterDefinition {
        try FilterDefinition.decode(json: Array(json.utf8))
    }

    @Test func theDesignDocumentsWebkitFilterDecodes() throws {
        let filter = try Self.decode(
            """
            { "name": "webkit-images",
              "match": { "schemes": ["http", "https"],
                         "extensions": ["jpg", "jpeg", "png", "gif", "tif", "bmp", "ico"],
                         "headers": { "User-Agent": { "contains": "AppleWebKit" } } },
              "action": "cache",
              "validate": "image",
              "ttl": 604800 }
            """)
        #expect(filter.name == "webkit-images")
        #expect(filter.enabled)
        #expect(filter.match.schemes == ["http", "https"])
        #expect(filter.match.extensions == ["jpg", "jpeg", "png", "gif", "tif", "bmp", "ico"])
        #expect(filter.match.headers == [.init(name: "User-Agent", comparison: .contains, value: "AppleWebKit")])
        #expect(filter.action == .cache)
        #expect(filter.validateImage)
        #expect(filter.overrides.ttl == 604_800)
    }

    @Test func everyFieldDecodesAndTheDecisionCarriesIt() throws {
        let filter = try Self.decode(
            """
            {"name":"all.fields_1","enabled":false,"match":{"schemes":["HTTPS"],"hosts":["*.Example.com"],
             "extensions":["JPG"],"pathPrefix":"/img/","headers":{"Accept":{"prefix":"image/"},"X-A":{"equals":"1"}}},
             "action":"bypass","contentTypes":["Image/*","text/html"],"maxBytes":1048576,"validate":"image",
             "allowSVG":true,"ttl":60,"minTtl":10,"maxTtl":3600,"staleIfError":300,"staleWhileRevalidate":30,
             "ignoreQuery":true,"dropParams":["utm_*","fbclid"],"ignoreNoStore":true}
            """)
        #expect(!filter.enabled)
        #expect(filter.match.schemes == ["https"])
        #expect(filter.match.hosts == ["*.example.com"])
        #expect(filter.match.extensions == ["jpg"])
        #expect(filter.match.pathPrefix == "/img/")
        #expect(filter.match.headers.map(\.comparison) == [.prefix, .equals])
        #expect(filter.contentTypes == ["image/*", "text/html"])
        let decision = filter.decision
        #expect(decision.filterName == "all.fields_1")
        #expect(decision.action == .bypass)
        #expect(decision.maxBytes == 1_048_576)
        #expect(decision.validateImage && decision.allowSVG && decision.ignoreNoStore)
        #expect(
            decision.overrides
                == PolicyOverrides(ttl: 60, minTtl: 10, maxTtl: 3600, staleIfError: 300, staleWhileRevalidate: 30))
        #expect(decision.canonicalization.ignoreQuery)
        #expect(decision.canonicalization.dropParams.map(\.pattern) == ["utm_*", "fbclid"])
    }

    @Test func staleIfDisconnectedDecodesRoundTripsAndRefusesBadValues() throws {
        let filter = try Self.decode(#"{"name":"offline","staleIfDisconnected":604800}"#)
        #expect(filter.decision.overrides.staleIfDisconnected == 604_800)
        #expect(filter.canonicalJSON.contains(#""staleIfDisconnected":604800"#))
        #expect(try Self.decode(filter.canonicalJSON) == filter)
        #expect(
            try Self.decode(#"{"name":"live","staleIfDisconnected":0}"#).decision.overrides.staleIfDisconnected == 0)
        #expect(try Self.decode(#"{"name":"plain"}"#).decision.overrides.staleIfDisconnected == nil)
        for bad in [#""1d""#, "-1", "1.5", "315360001"] {
            #expect(throws: FilterDefinitionError.self, "\(bad)") {
                try Self.decode(#"{"name":"x","staleIfDisconnected":"# + bad + "}")
            }
        }
    }

    @Test func fetchCanonicalURLDecodesRoundTripsAndIsOffByDefault() throws {
        let filter = try Self.decode(#"{"name":"clean","dropParams":["utm_*"],"fetchCanonicalURL":true}"#)
        #expect(filter.decision.fetchCanonicalURL)
        #expect(filter.canonicalJSON.contains(#""fetchCanonicalURL":true"#))
        #expect(try Self.decode(filter.canonicalJSON) == filter)
        let plain = try Self.decode(#"{"name":"plain","dropParams":["utm_*"]}"#)
        #expect(!plain.decision.fetchCanonicalURL)
        #expect(!plain.canonicalJSON.contains("fetchCanonicalURL"))
        #expect(throws: FilterDefinitionError.self) { try Self.decode(#"{"name":"x","fetchCanonicalURL":"yes"}"#) }
    }

    @Test func canonicalJSONHasAFixedOrderLeavesOutDefaultsAndRoundTrips() throws {
        let messy = try Self.decode(
            #"{"ttl":5,"validate":"image","match":{"extensions":["PNG"],"schemes":["https"]},"name":"x"}"#)
        #expect(
            messy.canonicalJSON
                == #"{"name":"x","enabled":true,"match":{"schemes":["https"],"extensions":["png"]},"action":"cache","validate":"image","ttl":5}"#
        )
        #expect(try Self.decode(messy.canonicalJSON) == messy)
        #expect(try Self.decode(FilterDefinition.images.canonicalJSON) == .images)
    }

    @Test func aChainDocumentDecodesFromGetFiltersShapeAndFromABareArray() throws {
        let text = FilterDefinition.chainJSON([.images, FilterDefinition(name: "b")], version: 7)
        #expect(try FilterDefinition.decodeList(json: Array(text.utf8)).map(\.name) == ["images", "b"])
        #expect(try FilterDefinition.decodeList(json: Array(#"[{"name":"a"}]"#.utf8)).map(\.name) == ["a"])
        #expect(try FilterDefinition.decodeList(json: Array(#"{"filters":[]}"#.utf8)).isEmpty)
    }

    @Test(
        arguments: [
            (#"{"match":{}}"#, "name"),
            (#"{"name":""}"#, "name"),
            (#"{"name":"has space"}"#, "name"),
            (#"{"name":"explain"}"#, "name"),
            ("{\"name\":\"" + String(repeating: "a", count: 65) + "\"}", "name"),
            (#"{"name":7}"#, "name"),
            (#"{"name":"a","colour":"red"}"#, "colour"),
            (#"{"name":"a","enabled":"yes"}"#, "enabled"),
            (#"{"name":"a","enabled":1}"#, "enabled"),
            (#"{"name":"a","action":"store"}"#, "action"),
            (#"{"name":"a","match":[]}"#, "match"),
            (#"{"name":"a","match":{"scheme":["http"]}}"#, "match.scheme"),
            (#"{"name":"a","match":{"schemes":["ftp"]}}"#, "match.schemes[0]"),
            (#"{"name":"a","match":{"schemes":"http"}}"#, "match.schemes"),
            (#"{"name":"a","match":{"schemes":[]}}"#, "match.schemes"),
            (#"{"name":"a","match":{"hosts":["a.example",3]}}"#, "match.hosts[1]"),
            (#"{"name":"a","match":{"hosts":["a/b"]}}"#, "match.hosts[0]"),
            (#"{"name":"a","match":{"extensions":[".jpg"]}}"#, "match.extensions[0]"),
            (#"{"name":"a","match":{"pathPrefix":"img"}}"#, "match.pathPrefix"),
            (#"{"name":"a","match":{"headers":{"User-Agent":{"contains":5}}}}"#, "match.headers.User-Agent.contains"),
            (#"{"name":"a","match":{"headers":{"User-Agent":{"like":"x"}}}}"#, "match.headers.User-Agent.like"),
            (
                #"{"name":"a","match":{"headers":{"User-Agent":{"contains":"x","equals":"y"}}}}"#,
                "match.headers.User-Agent"
            ),
            (#"{"name":"a","match":{"headers":{"Bad Name":{"contains":"x"}}}}"#, "match.headers.Bad Name"),
            (#"{"name":"a","match":{"headers":"x"}}"#, "match.headers"),
            (#"{"name":"a","contentTypes":["image"]}"#, "contentTypes[0]"),
            (#"{"name":"a","contentTypes":["*/png"]}"#, "contentTypes[0]"),
            (#"{"name":"a","maxBytes":0}"#, "maxBytes"),
            (#"{"name":"a","maxBytes":1.5}"#, "maxBytes"),
            (#"{"name":"a","maxBytes":"10"}"#, "maxBytes"),
            (#"{"name":"a","validate":"png"}"#, "validate"),
            (#"{"name":"a","ttl":-1}"#, "ttl"),
            (#"{"name":"a","ttl":1e3}"#, "ttl"),
            (#"{"name":"a","ttl":99999999999}"#, "ttl"),
            (#"{"name":"a","minTtl":100,"maxTtl":10}"#, "maxTtl"),
            (#"{"name":"a","staleIfError":true}"#, "staleIfError"),
            (#"{"name":"a","dropParams":[""]}"#, "dropParams[0]"),
            (#"{"name":"a","ignoreNoStore":"true"}"#, "ignoreNoStore"),
            (#"[]"#, "$"),
            (#"{"name":"a",}"#, "$"),
            (#"{"name":"a","name":"b"}"#, "$"),
        ] as [(String, String)])
    func badFilterJSONIsRefusedNamingTheFieldPath(_ json: String, _ path: String) {
        #expect(throws: FilterDefinitionError.self) { try Self.decode(json) }
        do {
            _ = try Self.decode(json)
        } catch {
            #expect(error.path == path, "\(error)")
        }
    }

    @Test(
        arguments: [
            (
                #"{"filters":[{"name":"a"},{"name":"b","match":{"headers":{"User-Agent":{"contains":1}}}}]}"#,
                "filters[1].match.headers.User-Agent.contains"
            ),
            (#"{"filters":[{"name":"a"},{"name":"a"}]}"#, "filters[1].name"),
            (#"{"filters":{}}"#, "filters"),
            (#"{"version":1}"#, "filters"),
            (#"{"version":"1","filters":[]}"#, "version"),
            (#"{"filters":[],"extra":1}"#, "extra"),
            (#"[{"name":"a"},{"name":"b","ttl":"x"}]"#, "filters[1].ttl"),
            (#""filters""#, "$"),
        ] as [(String, String)])
    func badChainJSONIsRefusedNamingTheFieldPath(_ json: String, _ path: String) {
        do {
            _ = try FilterDefinition.decodeList(json: Array(json.utf8))
            Issue.record("decoded \(json)")
        } catch {
            #expect(error.path == path, "\(error)")
        }
    }

    @Test func aMissingNameIsTakenFromTheDefaultAndAnExplicitNullCountsAsAbsent() throws {
        let filter = try FilterDefinition.decode(json: Array(#"{"ttl":null}"#.utf8), defaultName: "from-path")
        #expect(filter.name == "from-path")
        #expect(filter.overrides.ttl == nil)
    }
}
